package streamgen

// FreshID is freshID, for the tests.
var FreshID = freshID
