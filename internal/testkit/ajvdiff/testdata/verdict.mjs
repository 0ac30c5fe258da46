// Judges lines with ajv, the draft 2020-12 build, for the differential
// test in ../ajv_test.go. The manifest lists cases, each a schema and a
// file of lines (one JSON value a line, no blank lines, as evtool framed
// them); the answer, on stdout, is one JSON object per case:
// {"schema": …, "lines": …, "verdicts": ["valid"|"invalid"|"nojson", …]}.
//
//	node verdict.mjs manifest.json
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const compiled = new Map();

function validator(path) {
  if (!compiled.has(path)) {
    // One instance per schema: each is compiled on its own, as a consumer
    // that reads one published file would. Formats are annotations in
    // 2020-12, as evtool reads them; strict mode would refuse keywords a
    // schema may carry for people (e.g. "examples" placement).
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    compiled.set(path, ajv.compile(JSON.parse(readFileSync(path, "utf8"))));
  }
  return compiled.get(path);
}

for (const c of manifest) {
  const validate = validator(c.schema);
  const text = readFileSync(c.lines, "utf8");
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const verdicts = lines.map((line) => {
    let v;
    try {
      v = JSON.parse(line);
    } catch {
      return "nojson";
    }
    return validate(v) ? "valid" : "invalid";
  });
  process.stdout.write(JSON.stringify({ schema: c.schema, lines: c.lines, verdicts }) + "\n");
}
