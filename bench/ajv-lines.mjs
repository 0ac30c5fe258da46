// Validates every line of an NDJSON file against a JSON Schema (draft
// 2020-12) with ajv, the way a JavaScript consumer would: stream the file
// line by line, JSON.parse, validate. Prints one JSON summary line.
//
//	node bench/ajv-lines.mjs schema/basis.schema.json big.jsonl
//
// A $ref to another file is resolved beside the schema (ajv's loadSchema,
// read from disk before the first line: never the network).
import { createReadStream, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import Ajv2020 from "ajv/dist/2020.js";

const [schemaPath, file] = process.argv.slice(2);
if (!schemaPath || !file) {
  console.error("usage: node ajv-lines.mjs SCHEMA FILE");
  process.exit(2);
}
const dir = dirname(resolve(schemaPath));
// The evtool schemas use no "format", so ajv-formats is not needed;
// allErrors is off, as a consumer checking validity would run it.
const ajv = new Ajv2020({
  strict: false,
  loadSchema: async (uri) => JSON.parse(readFileSync(resolve(dir, uri.replace(/^file:\/\//, "").split("#")[0]), "utf8")),
});
const validate = await ajv.compileAsync(JSON.parse(readFileSync(schemaPath, "utf8")));

let lines = 0, valid = 0, invalid = 0, unparsable = 0;
const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === "") continue;
  lines++;
  let v;
  try {
    v = JSON.parse(line);
  } catch {
    unparsable++;
    continue;
  }
  if (validate(v)) valid++;
  else invalid++;
}
console.log(JSON.stringify({ lines, valid, invalid, unparsable }));
process.exit(invalid + unparsable > 0 ? 1 : 0);
