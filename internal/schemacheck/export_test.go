package schemacheck

// CompileEveryBranch compiles doc as Compile does, but a oneOf checks
// every branch in turn: the plain reading a dispatch must agree with.
func CompileEveryBranch(doc []byte) (*Schema, error) { return compile(doc, false) }

// Tags returns the tag of each oneOf that dispatches on one.
func (s *Schema) Tags() []string { return s.tags }
