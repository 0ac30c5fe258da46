package muse_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evtool/evtool/event"
)

// Issue 20: real Muse Code 1.0.1 writes "profile_id": null in
// run.model.configured when no profile applies (its captures
// meta_hello_1_0_1 and meta_tool_use_1_0_1; muse-codes 0.2.2 made the
// field an Option<String>). The seed's String type is older than the
// producer, and the capture is the contract. The probe streams are
// written in the shape of those captures: keys sorted as that recorder
// writes them, the 1.0.1 reminder words, and a null profile.
func TestProfileIDNull(t *testing.T) {
	for _, f := range []string{
		"../../testdata/probe/muse/valid/live_1_0_1_profile_null.jsonl",
		"../../testdata/probe/muse/valid/null_profile_id.jsonl",
		"../../testdata/probe/muse/ambiguous/profile_id_absent.jsonl",
	} {
		in := read(t, f)
		if sum, diags := validateAs(t, in, "muse"); sum.Errors != 0 || sum.Warnings != 0 {
			t.Errorf("%s: %d errors, %d warnings: %v", f, sum.Errors, sum.Warnings, diags)
		}
		canon := toCanonical(t, in)
		for _, ev := range events(t, canon) {
			if m, ok := ev.Body.(*event.ModelConfigured); ok && m.Profile != "" {
				t.Errorf("%s: no profile read as %q", f, m.Profile)
			}
		}
		if back, _ := fromCanonical(t, canon); !bytes.Equal(back, in) {
			t.Errorf("%s: muse → canonical → muse is not byte for byte:\n in: %s\nout: %s", f, in, back)
		}
		targetsAccept(t, f, in)
	}
	// "" and null are different words on the wire; both read as no
	// profile, and each comes back as it was.
	in := read(t, "../../testdata/probe/muse/valid/null_profile_id.jsonl")
	empty := bytes.Replace(in, []byte(`"profile_id":null`), []byte(`"profile_id":""`), 1)
	if bytes.Equal(empty, in) {
		t.Fatal("the probe stream has no null profile_id")
	}
	if back := roundTrip(t, empty); !bytes.Equal(back, empty) {
		t.Errorf("an empty profile_id is not kept:\n in: %s\nout: %s", empty, back)
	}
}

// Issue 20: words outside the closed sets of open strings (a payload's
// kind, a run's terminal state, a tool's outcome) are reported as
// muse/unknown-value, one finding each, and kept as read: they ride in
// ext.muse and come back byte for byte.
func TestUnknownValuesKept(t *testing.T) {
	in := string(read(t, corpus+"/meta_tool_use.jsonl"))
	edits := []struct{ from, to string }{
		{`"outcome":"success","tool_name":"write_file"`, `"outcome":"partial","tool_name":"write_file"`},
		{`"kind":"session_run_linked"`, `"kind":"run_linked"`},
		{`"terminal":"completed"`, `"terminal":"timed_out"`},
	}
	for _, e := range edits {
		if !strings.Contains(in, e.from) {
			t.Fatalf("the capture has no %s", e.from)
		}
		in = strings.Replace(in, e.from, e.to, 1)
	}
	_, diags := validateAs(t, []byte(in), "muse")
	var got []string
	for _, d := range diags {
		if d.Rule == "muse/unknown-value" {
			got = append(got, d.Pointer)
		}
	}
	want := []string{"/payload/kind", "/payload/correlation_facts/outcome", "/payload/terminal"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("unknown values at %v, want %v (%v)", got, want, diags)
	}
	canon := toCanonical(t, []byte(in))
	for _, w := range []string{"run_linked", "partial", "timed_out"} {
		if !bytes.Contains(canon, []byte(`\"`+w+`\"`)) && !bytes.Contains(canon, []byte(`"`+w+`"`)) {
			t.Errorf("%q is not kept in the canonical stream", w)
		}
	}
	back, _ := fromCanonical(t, canon)
	if string(back) != in {
		t.Errorf("not byte for byte:\n in: %s\nout: %s", in, back)
	}
}
