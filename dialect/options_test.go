package dialect_test

import (
	"strings"
	"testing"

	_ "github.com/evtool/evtool/adapters"
	"github.com/evtool/evtool/adapters/acp"
	"github.com/evtool/evtool/dialect"
)

func TestDefaultsSet(t *testing.T) {
	var d dialect.Defaults
	for _, k := range []dialect.DefaultKey{dialect.DefaultSessionID, dialect.DefaultModel, dialect.DefaultProvider,
		dialect.DefaultWorkspace, dialect.DefaultCLIVersion, dialect.DefaultBasisVersion} {
		if err := d.Set(k, "v-"+string(k)); err != nil {
			t.Fatal(err)
		}
		if got := d.Get(k); got != "v-"+string(k) {
			t.Errorf("Get(%s) = %q", k, got)
		}
	}
	if d.SessionID != "v-session_id" || d.Workspace != "v-workspace" {
		t.Errorf("Set did not reach the fields: %+v", d)
	}
	if err := d.Set("cwd", "/x"); err == nil {
		t.Error("Set of a key Defaults does not have: no error")
	}
}

// TestDefaultKeysAreKeys: every key a registered target takes names a
// field of Defaults, so no user's default is silently dropped.
func TestDefaultKeysAreKeys(t *testing.T) {
	for _, d := range dialect.All() {
		for _, k := range dialect.DefaultKeysOf(d) {
			var def dialect.Defaults
			if err := def.Set(k, "x"); err != nil {
				t.Errorf("%s takes %q: %v", d.Name(), k, err)
			}
		}
	}
}

type otherConfig struct{}

func (otherConfig) Validate() error { return nil }

func TestCheckConfig(t *testing.T) {
	a, _ := dialect.Lookup("acp")
	b, _ := dialect.Lookup("basis")
	for _, c := range []struct {
		d    dialect.Dialect
		cfg  dialect.Config
		want string
	}{
		{a, nil, ""},
		{a, &acp.Config{Profile: acp.Unstable}, ""},
		{a, (*acp.Config)(nil), ""},
		{a, &acp.Config{Profile: "beta"}, `acp settings: profile "beta"`},
		{a, otherConfig{}, "acp takes settings of type *acp.Config, not dialect_test.otherConfig"},
		{b, &acp.Config{Profile: acp.Stable}, "basis takes no settings"},
	} {
		err := dialect.CheckConfig(c.d, c.cfg)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("CheckConfig(%s, %#v) = %v, want %q", c.d.Name(), c.cfg, err, c.want)
		}
	}
	if cfg, ok := a.(dialect.Configurable).DefaultConfig().(*acp.Config); !ok || cfg.Profile != acp.Stable || cfg.Meta || cfg.Transcript {
		t.Errorf("acp's DefaultConfig = %#v", cfg)
	}
}
