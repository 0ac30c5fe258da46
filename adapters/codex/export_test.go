package codex

// The rule values, exported for the tests of package codex_test only (this
// file is built into tests alone): a case names the rule its stream must
// break by the value's ID, so the id stays written once, in rules.go.
var (
	RuleFirstLine       = ruleFirstLine
	RuleThreadChanged   = ruleThreadChanged
	RuleOneTurn         = ruleOneTurn
	RuleTurnStarted     = ruleTurnStarted
	RuleTurnNotStarted  = ruleTurnNotStarted
	RuleTruncated       = ruleTruncated
	RuleOutsideTurn     = ruleOutsideTurn
	RuleItemStarted     = ruleItemStarted
	RuleItemClosed      = ruleItemClosed
	RuleItemType        = ruleItemType
	RuleItemUnfinished  = ruleItemUnfinished
	RuleItemStatus      = ruleItemStatus
	RuleUsageNested     = ruleUsageNested
	RuleUsageDecreasing = ruleUsageDecreasing
	RuleUnknownType     = ruleUnknownType
	RuleUnknownItemType = ruleUnknownItemType
	RuleUnknownField    = ruleUnknownField
	RuleUnknownValue    = ruleUnknownValue
)
