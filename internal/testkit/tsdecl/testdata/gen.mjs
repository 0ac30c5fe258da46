// Generates the TypeScript declarations of evtool's published schemas:
// one <name>.d.ts per schema/<name>.schema.json, and index.d.ts.
//
//	node gen.mjs SCHEMA_DIR OUT_DIR      (make types: schema → schema/types)
//
// json-schema-to-typescript does the work. What it cannot read well is
// reshaped here, in memory, for TypeScript's sake only; the schemas stay
// as they are, and every choice below is about types, never validation:
//
//   - A oneOf is a union. Its "any other type" branch (the one that holds
//     the tag out of the known values with "not") is left out of the union
//     and declared beside it: TypeScript cannot say "a string but none of
//     these", and a branch whose tag is a plain string would keep every
//     case of a switch from narrowing. <Name>Event is the union of the
//     known types; <Name>OtherEvent the rest; <Name>Line either.
//   - A branch that applies under a condition ({"if": C, "then": T,
//     "else": false}) is T. Other conditionals, "not", and anyOf lists of
//     required keys are validation only, and are left out. Keys a
//     condition says are absent are declared absent (key?: undefined),
//     so that a switch on a key the other branches hold narrows.
//   - A tag held to a prefix by a pattern ("^run\\.terminal\\.") is a
//     template literal type (`run.terminal.${string}`), which narrows.
//   - A schema with no keyword that constrains its type is "any JSON
//     value": unknown.
//   - A $ref with a description beside it becomes allOf: [$ref], so that
//     the description documents the property and the referenced type is
//     declared once.
import { readFileSync, writeFileSync, readdirSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { compile } from "json-schema-to-typescript";

const [schemaDir, outDir] = process.argv.slice(2);
if (!schemaDir || !outDir) {
  console.error("usage: node gen.mjs SCHEMA_DIR OUT_DIR");
  process.exit(2);
}

const TYPE_KEYS = ["type", "enum", "const", "$ref", "properties", "items", "oneOf", "anyOf", "allOf", "additionalProperties", "tsType", "prefixItems"];

// pascal turns a schema's name into a type name: gemini-chat → GeminiChat.
const pascal = (s) => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((p) => p[0].toUpperCase() + p.slice(1)).join("");

const refName = (ref) => decodeURIComponent(ref.slice("#/$defs/".length)).replaceAll("~1", "/").replaceAll("~0", "~");
const refOf = (name) => "#/$defs/" + name.replaceAll("~", "~0").replaceAll("/", "~1");

function isObject(x) {
  return x !== null && typeof x === "object" && !Array.isArray(x);
}

// resolve follows bare $refs to the schema they name.
function resolve(doc, s) {
  for (let i = 0; i < 32 && isObject(s) && typeof s.$ref === "string" && s.$ref.startsWith("#/$defs/"); i++) {
    s = doc.$defs[refName(s.$ref)];
  }
  return s;
}

// isOther reports whether a union's branch is its "any other" branch: one
// of its properties is held out of a list of values by "not", or it has
// no properties of its own and only rules some out.
function isOther(doc, branch) {
  const s = resolve(doc, branch);
  if (!isObject(s)) return false;
  for (const p of Object.values(s.properties ?? {})) {
    if (isObject(p) && isObject(p.not) && (p.not.enum || p.not.const !== undefined || (p.not.anyOf ?? []).some((b) => b.enum))) return true;
  }
  return !s.properties && !s.oneOf && !s.$ref && (s.allOf ?? []).length > 0 && s.allOf.every((m) => isObject(m) && m.not);
}

// absentKeys returns the keys a condition says are absent: {"not":
// {"required": [k]}} or {"not": {"anyOf": [{"required": [k]}, …]}}.
function absentKeys(cond) {
  const not = isObject(cond) ? cond.not : undefined;
  if (!isObject(not)) return [];
  const one = (r) => (isObject(r) && Array.isArray(r.required) && r.required.length === 1 && Object.keys(r).length === 1 ? r.required : []);
  return [...one(not), ...(not.anyOf ?? []).flatMap(one)];
}

// prefixOf returns the literal prefix a pattern like ^run\.terminal\.
// holds a string to, or undefined.
function prefixOf(pattern) {
  const m = /^\^((?:[A-Za-z0-9_\-/:]|\\\.)+)$/.exec(pattern);
  return m ? m[1].replaceAll("\\.", ".") : undefined;
}

// leaves returns the object schemas a union is made of, through the
// unions it holds.
function leaves(doc, s, out = []) {
  s = resolve(doc, s);
  if (isObject(s) && Array.isArray(s.oneOf) && !s.properties) s.oneOf.forEach((b) => leaves(doc, b, out));
  else if (isObject(s)) out.push(s);
  return out;
}

// tagValues returns, by property, the strings a branch holds it to (by
// const or enum; a nested union by those its branches share).
function tagValues(doc, b) {
  const s = resolve(doc, b);
  if (!isObject(s)) return {};
  if (Array.isArray(s.oneOf) && !s.properties) {
    const each = s.oneOf.map((m) => tagValues(doc, m));
    const out = {};
    for (const [p, vs] of Object.entries(each[0] ?? {})) {
      const common = vs.filter((v) => each.every((e) => (e[p] ?? []).includes(v)));
      if (common.length) out[p] = common;
    }
    return out;
  }
  const out = {};
  for (const [p, v] of Object.entries(s.properties ?? {})) {
    if (!isObject(v)) continue;
    const vs = [v.const, ...(v.enum ?? [])].filter((x) => typeof x === "string");
    if (vs.length) out[p] = vs;
  }
  return out;
}

// declareTagAbsent finds the tag of a union (the property that tells its
// branches apart) and declares it absent from the
// branches that do not have it (a marker line with no type), so that a
// switch on the tag narrows: a branch that did not declare it would give
// it the type unknown, through its index signature, in every case.
function declareTagAbsent(doc, union) {
  // A nested union whose branches share no tag value is its branches.
  const units = (u) =>
    u.oneOf.flatMap((b) => {
      const s = resolve(doc, b);
      return isObject(s) && Array.isArray(s.oneOf) && !s.properties && Object.keys(tagValues(doc, s)).length === 0 ? units(s) : [b];
    });
  // The tag: the property that tells the most branches apart, each held
  // to values no other branch is held to.
  const each = units(union).map((b) => tagValues(doc, b));
  const props = [...new Set(each.flatMap((tv) => Object.keys(tv)))].sort();
  const told = (p) => each.filter((tv, i) => (tv[p] ?? []).length > 0 && each.every((o, j) => i === j || !(tv[p] ?? []).some((v) => (o[p] ?? []).includes(v)))).length;
  let tag;
  for (const p of props) if (told(p) > 0 && (tag === undefined || told(p) > told(tag))) tag = p;
  if (!tag) return;
  for (const l of leaves(doc, union)) {
    if (l.properties && !(tag in l.properties)) {
      l.properties[tag] = { tsType: "undefined", description: `Lines of this kind have no ${tag}.` };
    }
  }
}

function prepare(orig, name) {
  const doc = structuredClone(orig);
  doc.$defs ??= {};
  const others = new Set();

  // Guards: {"if": C, "then": T, "else": false} is T; keys C rules out are
  // absent from T.
  for (const [k, s] of Object.entries(doc.$defs)) {
    if (isObject(s) && s.if !== undefined && s.else === false && isObject(s.then)) {
      const absent = absentKeys(s.if);
      const target = resolve(doc, s.then);
      if (absent.length && isObject(target) && target.properties) {
        for (const key of absent) target.properties[key] ??= { tsType: "undefined", description: "Absent from this kind of line." };
      }
      doc.$defs[k] = { ...s.then };
    }
  }

  // Unions: the "any other" branches leave them.
  const walkUnions = (s) => {
    if (Array.isArray(s)) return s.forEach(walkUnions);
    if (!isObject(s)) return;
    if (Array.isArray(s.oneOf)) {
      const known = s.oneOf.filter((b) => !isOther(doc, b));
      if (known.length > 0 && known.length < s.oneOf.length) {
        for (const b of s.oneOf) if (isOther(doc, b) && b.$ref) others.add(refName(b.$ref));
        s.oneOf = known;
      }
    }
    Object.values(s).forEach(walkUnions);
  };
  const rootOneOf = doc.oneOf ? [...doc.oneOf] : undefined;
  // The "other" branches of the root's union, and of the unions it holds
  // (a system line of another subtype is a line of another type too).
  const rootOthers = [];
  const otherLines = (b) => {
    if (isOther(doc, b)) return rootOthers.push(b);
    const s = resolve(doc, b);
    if (isObject(s) && Array.isArray(s.oneOf) && !s.properties) s.oneOf.forEach(otherLines);
  };
  (rootOneOf ?? []).forEach(otherLines);
  walkUnions(doc.$defs);
  if (rootOneOf) {
    for (const b of rootOthers) others.delete(refName(b.$ref));
    doc.$defs.__event = {
      title: pascal(name) + "Event",
      description: "A line of a type the schema knows: narrow it with a switch on its tag.",
      oneOf: rootOneOf.filter((b) => !isOther(doc, b)),
    };
    doc.oneOf = [{ $ref: "#/$defs/__event" }, ...rootOthers];
    declareTagAbsent(doc, doc.$defs.__event);
  }

  // Keywords for validation only, and the shapes the generator misreads.
  const clean = (s) => {
    if (Array.isArray(s)) return s.forEach(clean);
    if (!isObject(s)) return;
    // An object or null (or another type) with properties: the generator
    // intersects the two; a union is meant.
    if (Array.isArray(s.type) && s.type.includes("object") && s.type.length > 1 && (s.properties || s.required)) {
      const { title, description, $comment, ...rest } = s;
      for (const k of Object.keys(s)) delete s[k];
      Object.assign(s, title ? { title } : {}, description ? { description } : {});
      s.anyOf = [{ ...rest, type: "object" }, { type: rest.type.filter((t) => t !== "object") }];
    }
    delete s.if;
    delete s.then;
    delete s.else;
    delete s.not;
    if (Array.isArray(s.anyOf) && s.anyOf.every((b) => isObject(b) && Object.keys(b).every((k) => k === "required"))) delete s.anyOf;
    if (Array.isArray(s.allOf)) {
      s.allOf.forEach(clean);
      s.allOf = s.allOf.filter((b) => !isObject(b) || Object.keys(b).length > 0);
      if (s.allOf.length === 0) delete s.allOf;
    }
    if (s.type === "string" && typeof s.pattern === "string" && prefixOf(s.pattern) !== undefined && s.tsType === undefined) {
      s.tsType = "`" + prefixOf(s.pattern) + "${string}`";
    }
    if (typeof s.$ref === "string" && Object.keys(s).some((k) => k !== "$ref")) {
      const ref = s.$ref;
      delete s.$ref;
      s.allOf = [{ $ref: ref }, ...(s.allOf ?? [])];
    }
    for (const [k, v] of Object.entries(s)) {
      if (k === "properties" || k === "$defs") {
        for (const p of Object.values(v)) {
          clean(p);
          if (isObject(p) && !TYPE_KEYS.some((t) => t in p)) p.tsType = "unknown";
        }
      } else if (k === "items" || k === "additionalProperties") {
        clean(v);
        if (isObject(v) && !TYPE_KEYS.some((t) => t in v)) v.tsType = "unknown";
      } else if (k !== "enum" && k !== "const" && k !== "examples" && k !== "default") {
        clean(v);
      }
    }
  };
  clean(doc);

  // Only what the root reaches, and the "other" branches, are declared.
  const reached = new Set();
  const reach = (s) => {
    if (Array.isArray(s)) return s.forEach(reach);
    if (!isObject(s)) return;
    if (typeof s.$ref === "string" && s.$ref.startsWith("#/$defs/")) {
      const n = refName(s.$ref);
      if (!reached.has(n)) {
        reached.add(n);
        reach(doc.$defs[n]);
      }
    }
    for (const [k, v] of Object.entries(s)) if (k !== "$defs" && k !== "enum" && k !== "const") reach(v);
  };
  reach(doc);
  for (const n of others) {
    reached.add(n);
    reach(doc.$defs[n]);
  }
  for (const n of Object.keys(doc.$defs)) if (!reached.has(n)) delete doc.$defs[n];
  if (rootOneOf) {
    doc.title = pascal(name) + "Line";
    doc.description = (orig.description ?? "") + (rootOthers.length ? "\n\nA line of a type the schema knows is a " + pascal(name) + "Event; any other line the schema admits is " + (rootOthers.length > 1 ? "one of " : "a ") + rootOthers.map((b) => resolve(doc, b).title).join(", ") + "." : "");
  }
  return { doc, others: [...others].sort() };
}

const banner = (file) =>
  `/* eslint-disable */\n/**\n * TypeScript declarations of evtool's ${file}, generated by\n * json-schema-to-typescript (internal/testkit/tsdecl/testdata/gen.mjs).\n * Do not edit: change the schema and run \`make types\`.\n */`;

mkdirSync(outDir, { recursive: true });
const files = readdirSync(schemaDir).filter((f) => f.endsWith(".schema.json")).sort();
const index = [];
for (const f of files) {
  const name = f.slice(0, -".schema.json".length);
  const schema = JSON.parse(readFileSync(join(schemaDir, f), "utf8"));
  const { doc, others } = prepare(schema, name);
  const options = {
    bannerComment: banner(f),
    additionalProperties: true,
    unknownAny: true,
    strictIndexSignatures: false,
    format: true,
    style: { printWidth: 100, singleQuote: false, trailingComma: "all" },
    $refOptions: { resolve: { external: false } },
  };
  let ts = await compile(doc, doc.title ?? pascal(name), options);
  // The "other" branches of nested unions, which nothing refers to, and
  // whose types the main declarations declare.
  for (const n of others) {
    const s = { ...doc.$defs[n], $defs: doc.$defs };
    ts += await compile(s, s.title ?? pascal(n), { ...options, bannerComment: "", declareExternallyReferenced: false });
  }
  writeFileSync(join(outDir, name + ".d.ts"), ts);
  index.push({ name, root: doc.oneOf ? pascal(name) : undefined, ts });
}

// index.d.ts: each schema's module under its own name, and the unions of
// the dialects' lines by theirs.
let out = `/**\n * TypeScript declarations of evtool's published JSON Schemas, one module per\n * schema/<name>.schema.json. Generated by internal/testkit/tsdecl/testdata/gen.mjs;\n * do not edit: change the schemas and run \`make types\`.\n */\n`;
for (const { name } of index) {
  const ns = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  out += `export type * as ${ns} from "./${name}.js";\n`;
}
for (const { name, root, ts } of index) {
  if (!root) continue;
  const names = [root + "Line", root + "Event"];
  const other = new RegExp(`export (?:interface|type) (${root}Other\\w*)`).exec(ts);
  if (other) names.push(other[1]);
  out += `export type { ${names.join(", ")} } from "./${name}.js";\n`;
}
writeFileSync(join(outDir, "index.d.ts"), out);

// package.json: the index, and each schema's module on its own path.
const exports = { ".": { types: "./index.d.ts" } };
for (const { name } of index) exports["./" + name] = { types: "./" + name + ".d.ts" };
const pkg = {
  name: "@evtool/schema-types",
  version: "1.0.0",
  description: "TypeScript declarations of evtool's JSON Schemas: one discriminated union per dialect's line. Types only: import type.",
  license: "Apache-2.0",
  types: "./index.d.ts",
  exports,
  files: ["*.d.ts"],
  sideEffects: false,
};
writeFileSync(join(outDir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
