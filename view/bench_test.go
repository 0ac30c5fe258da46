package view_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evtool/evtool/view"
)

// BenchmarkView measures a generated run of 10,000 turns (genRun: 150,000
// events, 43 MB of canonical lines): "page" reads it and writes its page
// (the MiB/page metric is the page's size), "load" opens the page in
// headless Chromium, from navigation to the load event (ms/load, as the
// page's own Navigation Timing counts it; the wall time of the whole
// navigation, through the DevTools protocol, is ns/op), and "showall"
// builds every turn the page holds as data (ns/op). docs/view.md has the
// figures.
//
//	go test ./view -run '^$' -bench View
func BenchmarkView(b *testing.B) {
	var in bytes.Buffer
	if err := genRun(&in, 10_000); err != nil {
		b.Fatal(err)
	}
	src := in.Bytes()
	page := filepath.Join(b.TempDir(), "10k.html")
	write := func() (int64, error) {
		run, err := view.Read(bytes.NewReader(src), "10k.jsonl", view.Options{})
		if err != nil {
			return 0, err
		}
		f, err := os.Create(page)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if err := view.WriteRun(f, run, view.PageOptions{}); err != nil {
			return 0, err
		}
		fi, err := f.Stat()
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	b.Run("page", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		var size int64
		for b.Loop() {
			var err error
			if size, err = write(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(size)/(1<<20), "MiB/page")
	})
	b.Run("load", func(b *testing.B) {
		if _, err := os.Stat(page); err != nil {
			if _, err := write(); err != nil {
				b.Fatal(err)
			}
		}
		tb := newTab(b)
		var load time.Duration
		n := 0
		for b.Loop() {
			b.StopTimer()
			tb.open("/dev/null") // a blank page between two loads
			b.StartTimer()
			tb.open(page)
			b.StopTimer()
			load += time.Duration(eval[float64](tb, `performance.getEntriesByType('navigation')[0].loadEventEnd`) * float64(time.Millisecond))
			n++
			b.StartTimer()
		}
		tb.check("loading the page of 10,000 turns")
		b.ReportMetric(float64(load.Milliseconds())/float64(n), "ms/load")
	})
	// "show all": every turn built from the data blocks, for a search of
	// the whole run with the browser's find.
	b.Run("showall", func(b *testing.B) {
		tb := newTab(b)
		for b.Loop() {
			b.StopTimer()
			tb.open(page)
			b.StartTimer()
			eval[bool](tb, `document.querySelector('button[data-act=all]').click(); true`)
			tb.until(`document.querySelectorAll('.slot:not([data-done])').length === 0`)
		}
		b.StopTimer()
		if n := eval[int](tb, `document.querySelectorAll('.turn').length`); n != 10_000 {
			b.Errorf("%d turns built", n)
		}
		tb.check("building every turn")
	})
}
