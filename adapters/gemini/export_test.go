package gemini

// The rule values, exported for the tests of package gemini_test only (this
// file is built into tests alone): a case names the rule its stream must
// break by the value's ID, so the id stays written once, in rules.go.
var (
	RuleFirstLine       = ruleFirstLine
	RuleInitRepeated    = ruleInitRepeated
	RuleAfterResult     = ruleAfterResult
	RuleTruncated       = ruleTruncated
	RuleToolIDReused    = ruleToolIDReused
	RuleResultUnknown   = ruleResultUnknown
	RuleResultTwice     = ruleResultTwice
	RuleToolUnfinished  = ruleToolUnfinished
	RuleStatsInput      = ruleStatsInput
	RuleStatsCached     = ruleStatsCached
	RuleStatsTotal      = ruleStatsTotal
	RuleStatsModels     = ruleStatsModels
	RuleTimestamp       = ruleTimestamp
	RuleSessionIDChange = ruleSessionIDChange
	RuleUnknownType     = ruleUnknownType
	RuleUnknownField    = ruleUnknownField
	RuleUnknownValue    = ruleUnknownValue
)
