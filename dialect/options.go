package dialect

import (
	"fmt"
	"strings"
)

// Defaults are the facts a target needs and a source may lack, which the
// user supplies (`evtool convert --session-id`, `--default KEY=VALUE`). A
// target uses a field only where the source says nothing; an empty field
// supplies nothing.
type Defaults struct {
	SessionID    string // session_id
	Model        string // model
	Provider     string // provider
	Workspace    string // workspace: the working directory
	CLIVersion   string // cli_version: the producer's version a header states
	BasisVersion string // basis_version: the protocol version of a basis header
}

// A DefaultKey names one field of Defaults where the user gives it.
type DefaultKey string

// The keys of Defaults.
const (
	DefaultSessionID    DefaultKey = "session_id"
	DefaultModel        DefaultKey = "model"
	DefaultProvider     DefaultKey = "provider"
	DefaultWorkspace    DefaultKey = "workspace"
	DefaultCLIVersion   DefaultKey = "cli_version"
	DefaultBasisVersion DefaultKey = "basis_version"
)

// field returns the field a key names, nil for no key of Defaults.
func (d *Defaults) field(k DefaultKey) *string {
	switch k {
	case DefaultSessionID:
		return &d.SessionID
	case DefaultModel:
		return &d.Model
	case DefaultProvider:
		return &d.Provider
	case DefaultWorkspace:
		return &d.Workspace
	case DefaultCLIVersion:
		return &d.CLIVersion
	case DefaultBasisVersion:
		return &d.BasisVersion
	}
	return nil
}

// Set sets the field a key names; a key that names none is an error.
func (d *Defaults) Set(k DefaultKey, v string) error {
	f := d.field(k)
	if f == nil {
		return fmt.Errorf("no default %q", string(k))
	}
	*f = v
	return nil
}

// Get returns the field a key names, "" for a key that names none.
func (d Defaults) Get(k DefaultKey) string {
	if f := d.field(k); f != nil {
		return *f
	}
	return ""
}

// DefaultsTaker is implemented by targets that fill facts the source lacks
// from EncodeOptions.Defaults. A target that is not one writes only what
// the source says, and a user's default for it is an error.
type DefaultsTaker interface {
	// DefaultKeys names the fields of Defaults the encoder reads.
	DefaultKeys() []DefaultKey
}

// DefaultKeysOf returns the keys a target takes, none for a target that is
// not a DefaultsTaker.
func DefaultKeysOf(d Dialect) []DefaultKey {
	if t, ok := d.(DefaultsTaker); ok {
		return t.DefaultKeys()
	}
	return nil
}

// Config is a target's own settings, such as the profile of ACP it
// writes: a struct of the target's package, made by its DefaultConfig and
// checked by Validate before an encoder gets it.
type Config interface {
	// Validate reports settings the target cannot honour.
	Validate() error
}

// Configurable is implemented by targets with settings of their own.
type Configurable interface {
	// DefaultConfig returns the settings an encoder uses when it is given
	// none, as a fresh value the caller may change.
	DefaultConfig() Config
}

// CheckConfig checks settings meant for a target: the target takes
// settings, they are of its type, and they validate. A nil cfg is fine:
// the target uses its defaults.
func CheckConfig(d Dialect, cfg Config) error {
	if cfg == nil {
		return nil
	}
	c, ok := d.(Configurable)
	if !ok {
		return fmt.Errorf("%s takes no settings", d.Name())
	}
	if want, got := fmt.Sprintf("%T", c.DefaultConfig()), fmt.Sprintf("%T", cfg); want != got {
		return fmt.Errorf("%s takes settings of type %s, not %s", d.Name(), want, got)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%s settings: %w", d.Name(), err)
	}
	return nil
}

// JoinKeys writes keys as a list for a message: "model, session_id".
func JoinKeys(keys []DefaultKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
