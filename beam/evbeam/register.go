package evbeam

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local files; gs:// and s3:// are the program's to import
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/evtool/evtool/diag"
	"github.com/evtool/evtool/stats"

	_ "github.com/evtool/evtool/adapters" // registers every dialect and store
)

func init() {
	// Elements travel as JSON: plain, and a Result's error as its text.
	beam.RegisterCoder(reflect.TypeOf(Run{}), encodeRun, decodeRun)
	beam.RegisterCoder(reflect.TypeOf(Result{}), encodeResult, decodeResult)
	beam.RegisterCoder(reflect.TypeOf(diag.Diagnostic{}), encodeDiagnostic, decodeDiagnostic)
	beam.RegisterCoder(reflect.TypeOf(Converted{}), encodeConverted, decodeConverted)
	beam.RegisterCoder(reflect.TypeOf(Part{}), encodePart, decodePart)
	beam.RegisterCoder(reflect.TypeOf(usageAcc{}), encodeUsageAcc, decodeUsageAcc)

	register.DoFn3x1[context.Context, []byte, func(Run), error](&matchFn{})
	register.DoFn3x1[context.Context, []byte, func(Run), error](&sessionsFn{})
	register.DoFn3x1[context.Context, Run, func(Result), error](&validateFn{})
	register.Function2x0(emitDiagnostics)
	register.DoFn3x1[[]byte, func(*Result) bool, func([]byte), error](&reportFn{})
	register.DoFn3x1[context.Context, Run, func(Converted), error](&convertFn{})
	register.DoFn2x1[[]byte, func(*Converted) bool, error](&cleanFn{})
	register.DoFn3x1[context.Context, Run, func(Part), error](&usageReadFn{})
	register.Function2x0(partKeys)
	register.Function3x0(laterRuns)
	register.Function1x2(partByRun)
	register.DoFn4x1[string, func(*Part) bool, func(*uint64) bool, func([]byte), error](&usagePartialFn{})
	register.Combiner3[usageAcc, []byte, []byte](&usageMergeFn{})
	register.DoFn4x1[context.Context, []byte, func(*[]byte) bool, func([]byte), error](&usageReportFn{})
	register.DoFn3x1[context.Context, []byte, func(*[]byte) bool, error](&writeFileFn{})

	register.Emitter1[Run]()
	register.Emitter1[Result]()
	register.Emitter1[diag.Diagnostic]()
	register.Emitter1[Converted]()
	register.Emitter1[Part]()
	register.Emitter1[[]byte]()
	register.Emitter2[uint64, string]()
	register.Emitter2[string, uint64]()
	register.Iter1[Result]()
	register.Iter1[Converted]()
	register.Iter1[Part]()
	register.Iter1[[]byte]()
	register.Iter1[string]()
	register.Iter1[uint64]()
}

// The coders: named functions, as a runner's workers look them up.

func encodeRun(v Run) ([]byte, error) { return json.Marshal(v) }

func decodeRun(b []byte) (v Run, err error) { err = json.Unmarshal(b, &v); return v, err }

func encodeResult(v Result) ([]byte, error) { return json.Marshal(v) }

func decodeResult(b []byte) (v Result, err error) {
	err = json.Unmarshal(b, &v)
	return v, err
}

func encodeDiagnostic(v diag.Diagnostic) ([]byte, error) { return json.Marshal(v) }

func decodeDiagnostic(b []byte) (v diag.Diagnostic, err error) {
	err = json.Unmarshal(b, &v)
	return v, err
}

func encodeConverted(v Converted) ([]byte, error) { return json.Marshal(v) }

func decodeConverted(b []byte) (v Converted, err error) { err = json.Unmarshal(b, &v); return v, err }

func encodePart(v Part) ([]byte, error) { return json.Marshal(v) }

func decodePart(b []byte) (v Part, err error) { err = json.Unmarshal(b, &v); return v, err }

// A usageAcc is its merged report's binary form; none, no bytes.
func encodeUsageAcc(v usageAcc) ([]byte, error) {
	if v.R == nil {
		return nil, nil
	}
	return v.R.MarshalBinary()
}

func decodeUsageAcc(b []byte) (usageAcc, error) {
	if len(b) == 0 {
		return usageAcc{}, nil
	}
	var rp stats.Report
	err := rp.UnmarshalBinary(b)
	return usageAcc{&rp}, err
}
