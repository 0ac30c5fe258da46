package dialecttest_test

import (
	"fmt"

	"github.com/evtool/evtool/dialecttest"
)

// A dialect's test file proves the dialect with one call each:
//
//	func TestDialect(t *testing.T)   { dialecttest.Run(t, toy.Dialect{}, dialecttest.Conventional("toy")) }
//	func FuzzRoundTrip(f *testing.F) { dialecttest.Fuzz(f, toy.Dialect{}, dialecttest.Conventional("toy")) }
//
// Run's checks, in the order they run:
func ExampleChecks() {
	names, _ := dialecttest.Checks()
	fmt.Println(names)
	// Output: [sniff schema invalid contract roundtrip keyorder golden cross losses rules memory pinning mutation]
}
