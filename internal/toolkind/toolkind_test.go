package toolkind

import (
	"testing"

	"github.com/evtool/evtool/event"
)

func TestByName(t *testing.T) {
	table := map[string]event.ToolKind{"read_file": event.KindRead}
	for name, want := range map[string]event.ToolKind{
		"read_file": event.KindRead, "Read_File": event.KindRead, "fs/read_file": event.KindRead,
		"a/b/READ_FILE": event.KindRead, "write_file": event.KindOther, "": event.KindOther, "read_file/": event.KindOther,
	} {
		if got := ByName(table, name); got != want {
			t.Errorf("ByName(%q) = %q, want %q", name, got, want)
		}
	}
}
