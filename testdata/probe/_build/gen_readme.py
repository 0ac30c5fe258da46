"""Rebuild ../README.md from README.head.md, README.valid.md, the EXPECT/NOTES tables and README.tail.md."""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
def esc(s): return s.replace('|', '\\|')
def part(n): return open(os.path.join(HERE, n), encoding='utf-8').read()
out = [part('README.head.md'), part('README.valid.md')]
for d in ['basis', 'mermaid', 'muse']:
    out.append("## %s: invalid/ (one row per file, from `%s/EXPECT.tsv`)\n\n| file | line | pointer | problem |\n|---|---|---|---|\n" % (d, d))
    for r in open(os.path.join(ROOT, d, 'EXPECT.tsv'), encoding='utf-8'):
        f, l, p, why = r.rstrip('\n').split('\t')
        out.append("| `%s` | %s | `%s` | %s |\n" % (f, l, p, esc(why)))
    out.append("\n## %s: ambiguous/ (from `%s/ambiguous/NOTES.tsv`)\n\n| file | line | pointer | seeds vs reference |\n|---|---|---|---|\n" % (d, d))
    for r in open(os.path.join(ROOT, d, 'ambiguous', 'NOTES.tsv'), encoding='utf-8'):
        f, l, p, why = r.rstrip('\n').split('\t')
        out.append("| `%s` | %s | `%s` | %s |\n" % (f, l, p, esc(why)))
    out.append("\n")
out.append(part('README.tail.md'))
open(os.path.join(ROOT, 'README.md'), 'w', encoding='utf-8').write(''.join(out))
