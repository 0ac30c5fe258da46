package view

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestWriteTree: the renderer's markup becomes the JSON tree the page's
// script builds, its text unescaped (the script writes it as text), and
// nothing in the data block could end it or be read as markup.
func TestWriteTree(t *testing.T) {
	var src bytes.Buffer
	h := newHW(&src)
	h.raw(`<section class="turn" id="run-1-t3"><h2><a href="#run-1-t3">Turn 3</a></h2><div class="msg a"><p class="md">`)
	h.text("</script><script>alert(1)</script> & \"q\" 'a' \u2028 \x1b[31mred")
	h.raw(`<br></p><details class="sub" open><summary>x</summary></details></div></section>`)
	h.raw(`<hr class="md">`)
	h.flush()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	writeTree(w, src.Bytes())
	w.Flush()
	if bytes.ContainsAny(out.Bytes(), "<>&") || bytes.Contains(out.Bytes(), []byte("\u2028")) {
		t.Fatalf("the data block holds <, >, & or U+2028: %s", out.String())
	}
	var got any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	want := []any{
		[]any{"section", map[string]any{"class": "turn", "id": "run-1-t3"},
			[]any{"h2", map[string]any{}, []any{"a", map[string]any{"href": "#run-1-t3"}, "Turn 3"}},
			[]any{"div", map[string]any{"class": "msg a"},
				[]any{"p", map[string]any{"class": "md"}, "</script><script>alert(1)</script> & \"q\" 'a' \u2028 red", []any{"br", map[string]any{}}},
				[]any{"details", map[string]any{"class": "sub", "open": ""}, []any{"summary", map[string]any{}, "x"}}}},
		[]any{"hr", map[string]any{"class": "md"}},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		wn, _ := json.Marshal(want)
		t.Errorf("got  %s\nwant %s", g, wn)
	}
}

// TestText: the input's text is escaped, its terminal escapes dropped,
// its control characters and bidirectional overrides made visible.
func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`<a href="x">&'`, "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"},
		{"\x1b[1;31mred\x1b[0m plain", "red plain"},
		{"\x1b]8;;https://x/\x07link\x1b]8;;\x1b\\ end", "link end"},
		{"a\x00b\x07c\x7fd", "a\u2400b\u2407c\u2421d"},
		{"one\r\ntwo\rthree", "one\ntwo\nthree"},
		{"\u202eevil\u2066", "[U+202E]evil[U+2066]"},
		{"bad \xff utf8 \u0085", "bad \ufffd utf8 \ufffd"},
		{"\x1b", ""},
		{"\x1b[", ""},
	} {
		var b bytes.Buffer
		h := newHW(&b)
		h.text(c.in)
		h.flush()
		if b.String() != c.want {
			t.Errorf("text(%q) = %q, want %q", c.in, b.String(), c.want)
		}
	}
}

// TestMarkdown: the subset, and markup in a message staying text.
func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# Title", `<h3 class="md">Title</h3>`},
		{"a **b** *c* `d` ~~e~~", `<p class="md">a <strong>b</strong> <em>c</em> <code>d</code> <del>e</del></p>`},
		{"snake_case_word and _em_", `<p class="md">snake_case_word and <em>em</em></p>`},
		{"- one\n- two\n\n1. a\n2. b", `<ul class="md"><li>one</li><li>two</li></ul><ol class="md"><li>a</li><li>b</li></ol>`},
		{"3. three\n4. four", `<ol class="md" start="3"><li>three</li><li>four</li></ol>`},
		{"```go\nx := 1 < 2\n```", `<pre class="code"><span class="lang">go</span><code>x := 1 &lt; 2</code></pre>`},
		{"```diff\n-a\n+b\n```", `<pre class="diff"><span class="dd">-a</span>` + "\n" + `<span class="da">+b</span>` + "\n</pre>"},
		{"> quoted\n> more", `<blockquote><p class="md">quoted` + "\n" + `more</p></blockquote>`},
		{"| a | b |\n|---|:-:|\n| 1 | `2` |", `<div class="tw"><table class="md"><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><code>2</code></td></tr></tbody></table></div>`},
		{"[text](javascript:alert(1))", `<p class="md"><span class="lk">text</span> <span class="url">(javascript:alert(1))</span></p>`},
		{"![alt](https://x/y.png)", `<p class="md"><span class="img">[image: alt]</span> <span class="url">(https://x/y.png)</span></p>`},
		{"<script>alert(1)</script>", `<p class="md">&lt;script&gt;alert(1)&lt;/script&gt;</p>`},
		{"**<img src=x onerror=alert(1)>**", `<p class="md"><strong>&lt;img src=x onerror=alert(1)&gt;</strong></p>`},
		{`\*not em\*`, `<p class="md">*not em*</p>`},
		{"line  \nbreak", `<p class="md">line<br>` + "\nbreak</p>"},
		{"---", `<hr class="md">`},
	} {
		var b bytes.Buffer
		h := newHW(&b)
		md(h, c.in)
		h.flush()
		if b.String() != c.want {
			t.Errorf("md(%q)\n got %s\nwant %s", c.in, b.String(), c.want)
		}
	}
}

// TestMarkdownBounded: text built to make a renderer slow or deep is
// written in time, whole and escaped.
func TestMarkdownBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("* a ", 20000),
		strings.Repeat("[", 30000) + strings.Repeat("](x)", 10000),
		strings.Repeat("`", 30000),
		strings.Repeat(">", 5000) + " deep",
		strings.Repeat("- ", 5000) + "deep",
		strings.Repeat("_a ", 20000),
		strings.Repeat("**", 20000),
	} {
		var b bytes.Buffer
		h := newHW(&b)
		md(h, in)
		h.flush()
		if b.Len() == 0 || strings.Contains(b.String(), "<script") {
			t.Errorf("md of %.20q…: %d bytes", in, b.Len())
		}
	}
}

// TestLineDiff: an edit's old and new text as a diff, unchanged runs
// shortened.
func TestLineDiff(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"x\ny\nz", "x\nY\nz", " x\n-y\n+Y\n z\n"},
		{"", "new\nfile", "+new\n+file\n"},
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj", "a\nb\nc\nd\ne\nF\ng\nh\ni\nj", "@@ 2 unchanged lines @@\n c\n d\n e\n-f\n+F\n g\n h\n i\n j\n"},
		{"1\n2\n3", "1\n3\n4", " 1\n-2\n 3\n+4\n"},
	} {
		if got := lineDiff(c.a, c.b); got != c.want {
			t.Errorf("lineDiff(%q, %q) =\n%s\nwant\n%s", c.a, c.b, got, c.want)
		}
	}
}

// TestRelative: a page links only to relative addresses.
func TestRelative(t *testing.T) {
	for href, want := range map[string]bool{"index.html": true, "../runs/index.html": true, "#index": true, "a/b:c.html": true,
		"javascript:alert(1)": false, "https://example.com/": false, "JavaScript:x": false, "data:text/html,x": false} {
		if relative(href) != want {
			t.Errorf("relative(%q) = %v", href, !want)
		}
	}
}
