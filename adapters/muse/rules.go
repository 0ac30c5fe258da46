package muse

import "github.com/evtool/evtool/dialect"

type checker struct{}

func newChecker() *checker                                               { return &checker{} }
func (c *checker) Line(line []byte, n int, report func(dialect.Finding)) {}
func (c *checker) End(last int, report func(dialect.Finding))            {}
