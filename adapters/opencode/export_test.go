package opencode

// The rule values, exported for the tests of package opencode_test only (this
// file is built into tests alone): a case names the rule its stream must
// break by the value's ID, so the id stays written once, in rules.go.
var (
	RuleEmpty        = ruleEmpty
	RuleFirstLine    = ruleFirstLine
	RuleTruncated    = ruleTruncated
	RuleAfterDone    = ruleAfterDone
	RuleShape        = ruleShape
	RuleSessionID    = ruleSessionID
	RulePartSession  = rulePartSession
	RulePartType     = rulePartType
	RulePartRepeated = rulePartRepeated
	RuleStepOpen     = ruleStepOpen
	RuleOutsideStep  = ruleOutsideStep
	RuleToolState    = ruleToolState
	RuleTextState    = ruleTextState
	RuleUsageTotal   = ruleUsageTotal
	RuleUnknownType  = ruleUnknownType
	RuleUnknownField = ruleUnknownField
	RuleUnknownValue = ruleUnknownValue
)
