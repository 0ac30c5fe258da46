package stats

import "testing"

func TestDecimal(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"0.0", "0"}, {"1.50", "1.5"}, {"12", "12"}, {"1e3", "1000"},
		{"1E+2", "100"}, {"1.5e-3", "0.0015"}, {"12e-1", "1.2"}, {"-0.25", "-0.25"}, {"1e-1000", "0." + zeros(999) + "1"},
		{"123456789012345678901234567890.123456789", "123456789012345678901234567890.123456789"},
		{"0.1e0000000001", "1"},
	} {
		d, err := parseDecimal(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := d.String(); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1e1001", "1e-1001", "1e99999999999", "abc", "1 ", "0x10", "NaN"} {
		if _, err := parseDecimal(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestDecimalAdd(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"0.1", "0.2"}, "0.3"},
		{[]string{"0.1", "0.2", "-0.3"}, "0"},
		{[]string{"1e2", "0.001"}, "100.001"},
		{[]string{"0.000012", "1.2e-7", "3"}, "3.00001212"},
		{[]string{"0.30000000000000004", "0.1"}, "0.40000000000000004"},
		{[]string{"18446744073709551615", "1"}, "18446744073709551616"},
	} {
		var sum decimal
		for _, s := range tt.in {
			d, err := parseDecimal(s)
			if err != nil {
				t.Fatal(err)
			}
			sum.add(&d)
		}
		if got := sum.String(); got != tt.want {
			t.Errorf("sum %v = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}
