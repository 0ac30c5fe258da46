package geminichat

// The rules, for the tests of package geminichat_test.
var (
	RuleFirstLine      = ruleFirstLine
	RuleMetaRepeated   = ruleMetaRepeated
	RuleRewindUnknown  = ruleRewindUnknown
	RuleReappended     = ruleReappended
	RuleToolUnfinished = ruleToolUnfinished
	RuleTokensTotal    = ruleTokensTotal
	RuleTokensCached   = ruleTokensCached
	RuleTimestamp      = ruleTimestamp
	RuleUnknownLine    = ruleUnknownLine
	RuleUnknownType    = ruleUnknownType
	RuleUnknownField   = ruleUnknownField
	RuleUnknownValue   = ruleUnknownValue
)
