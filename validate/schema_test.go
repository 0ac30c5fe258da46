package validate_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/evtool/evtool/validate"
)

func userSchema(t *testing.T, name string) *validate.Schema {
	t.Helper()
	s, err := validate.CompileSchema("testdata/userschema/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A generic NDJSON file (a shop's orders, no agent stream) against a
// user's schema that refers to its sibling files by $id and by name.
func TestUserSchema(t *testing.T) {
	s := userSchema(t, "order.schema.json")
	in, err := os.ReadFile("testdata/userschema/orders.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var valid, invalid bytes.Buffer
	sum, err := validate.Stream(bytes.NewReader(in), "orders.ndjson", validate.Options{Schema: s, Valid: &valid, Invalid: &invalid},
		func(d validate.Diagnostic) {
			got = append(got, d.String())
			if d.Line == 2 && d.Pointer == "/items/0/qty" && (d.Keyword != "exclusiveMinimum" || !strings.HasPrefix(d.SchemaLocation, "order.schema.json#/$defs/item/")) {
				t.Errorf("keyword %q at %q", d.Keyword, d.SchemaLocation)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"orders.ndjson:2:28: error: /customer/name: minLength: got 0, want 1 [json/schema]",
		"orders.ndjson:2:48: error: /items/0/sku: 'abc' does not match pattern '^[A-Z]{3}-[0-9]+$' [json/schema]",
		"orders.ndjson:2:60: error: /items/0/qty: exclusiveMinimum: got 0, want more than 0 [json/schema]",
		"orders.ndjson:2:72: error: /total: got 12.5, want string [json/schema]",
		"orders.ndjson:4:1: error: additional properties 'alpha', 'coupon', 'zeta' not allowed [json/schema]",
		"orders.ndjson:4:42: error: /items: minItems: got 0, want 1 [json/schema]",
		"orders.ndjson:5:64: error: /items/0/qty: maximum: got 18446744073709551616, want at most 18446744073709551615 [json/schema]",
		"orders.ndjson:7:2: error: invalid JSON: unexpected 'o' in a literal (true, false or null) [json/syntax]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sum.Lines != 7 || sum.Errors != len(want) || sum.Dialect != "" || sum.Schema != "testdata/userschema/order.schema.json" {
		t.Errorf("summary %+v", sum)
	}
	lines := strings.Split(string(in), "\n")
	wantValid := lines[0] + "\n" + lines[5] + "\n" + lines[7] + "\n"
	wantInvalid := lines[1] + "\n" + lines[3] + "\n" + lines[4] + "\n" + lines[6] + "\n"
	if valid.String() != wantValid {
		t.Errorf("valid lines:\n%s", valid.String())
	}
	if invalid.String() != wantInvalid {
		t.Errorf("invalid lines:\n%s", invalid.String())
	}
}

// $schema is honoured: draft-07's array form of items.
func TestUserSchemaDraft7(t *testing.T) {
	s := userSchema(t, "draft7.schema.json")
	var got []string
	_, err := validate.Stream(strings.NewReader(`{"tags":["a"]}`+"\n"+`{"tags":["a","b"]}`+"\n"+`{"tags":[1]}`+"\n"), "t", validate.Options{Schema: s},
		func(d validate.Diagnostic) { got = append(got, d.Pointer+" "+d.Keyword) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "/tags additionalItems|/tags/0 type" {
		t.Errorf("got %q", got)
	}
}

// A reference to a schema that is not a local file is refused: evtool
// never goes to the network.
func TestUserSchemaNoNetwork(t *testing.T) {
	_, err := validate.CompileSchema("testdata/userschema/remote.schema.json")
	if err == nil || !strings.Contains(err.Error(), "never fetches schemas from the network") {
		t.Fatalf("got %v", err)
	}
	if _, err := validate.CompileSchema("testdata/userschema/missing.json"); err == nil {
		t.Fatal("a missing schema must be an error")
	}
}

// The messages of a line are the same bytes from run to run, although
// the engine iterates maps.
func TestUserSchemaDeterministic(t *testing.T) {
	s := userSchema(t, "order.schema.json")
	line := `{"id":0,"customer":{},"items":[{"sku":1,"qty":-1},{}],"total":1,"b":1,"a":2,"c":3,"d":4}` + "\n"
	var first string
	for i := range 50 {
		var b strings.Builder
		if _, err := validate.Stream(strings.NewReader(line), "x", validate.Options{Schema: s}, func(d validate.Diagnostic) { b.WriteString(d.String() + "\n") }); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b.String()
		} else if b.String() != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, b.String(), first)
		}
	}
	if strings.Count(first, "\n") < 7 {
		t.Errorf("too few diagnostics:\n%s", first)
	}
}

func TestUserSchemaWithDialect(t *testing.T) {
	s := userSchema(t, "order.schema.json")
	_, err := validate.Stream(strings.NewReader("{}\n"), "x", validate.Options{Schema: s, Dialect: basisDialect(t)}, func(validate.Diagnostic) {})
	if err == nil {
		t.Fatal("a dialect and a user's schema together must be refused")
	}
}
