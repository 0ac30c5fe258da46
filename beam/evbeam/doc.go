// Package evbeam is evtool's reading as Apache Beam transforms: the same
// validation, conversion and usage reports as the evtool command line,
// byte for byte, spread over the workers of any Beam runner (Prism, the
// embedded local runner, by default in cmd/evtool-beam; Dataflow, Flink,
// Spark).
//
// A pipeline starts from runs: Match expands Beam filesystem globs (local
// files, gs://, s3://; .gz and .zst read as they are) and Sessions finds
// the sessions agents keep on disk. Each run is one element, read in order
// inside one worker by evtool's own stream reader, so every line gets the
// one verdict the command line gives it.
//
//	runs := evbeam.Match(s, "gs://bucket/runs/*/*.jsonl.zst")
//	res := evbeam.Validate(s, runs, evbeam.ValidateOptions{})
//	evbeam.WriteFile(s, evbeam.Report(s, res, "sarif"), "gs://bucket/report.sarif")
//	evbeam.Convert(s, runs, evbeam.ConvertOptions{To: "canonical", OutDir: "gs://bucket/canonical"})
//	evbeam.WriteFile(s, evbeam.Usage(s, runs, evbeam.UsageOptions{By: "day,model", Format: "json"}), "gs://bucket/usage.json")
//
// Every output is written once, whatever the runner retries: a converted
// run is written under a temporary name and renamed to a name that
// depends on its input only (on object stores, whose objects appear
// whole when their upload ends, it is written in place), so a retried
// bundle replaces the output its failed attempt may have left.
package evbeam
