package suite

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVoucherApply(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v       Voucher
		total   float64
		want    float64
		applies bool
	}{
		{"fixed", Voucher{Threshold: 170, DiscountType: DiscountFixed, FaceValue: ptr(34.0)}, 453, 419, true},
		{"below threshold", Voucher{Threshold: 170, DiscountType: DiscountFixed, FaceValue: ptr(34.0)}, 100, 100, false},
		{"percentage", Voucher{Threshold: 63, DiscountType: DiscountPercentage, Discount: ptr(0.5), Cap: ptr(100.0)}, 100, 50, true},
		{"percentage capped", Voucher{Threshold: 63, DiscountType: DiscountPercentage, Discount: ptr(0.5), Cap: ptr(10.0)}, 100, 90, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.v.Apply(tc.total)
			if ok != tc.applies || got != tc.want {
				t.Fatalf("Apply(%v) = %v, %v; want %v, %v", tc.total, got, ok, tc.want, tc.applies)
			}
		})
	}
}

func TestPriceBoundJSON(t *testing.T) {
	for _, tc := range []struct {
		in, filter string
		in300      bool
	}{
		{`{"between":[100,500]}`, "100-500", true},
		{`{"greater than":[375,null]}`, "375-", false},
		{`{"less than":[null,400.5]}`, "-400.5", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var b PriceBound
			if err := json.Unmarshal([]byte(tc.in), &b); err != nil {
				t.Fatal(err)
			}
			out, _ := json.Marshal(b)
			if string(out) != tc.in || b.Filter() != tc.filter || b.Contains(300) != tc.in300 {
				t.Fatalf("round trip %s, filter %q, contains(300) %v", out, b.Filter(), b.Contains(300))
			}
		})
	}
	for _, bad := range []string{`{"between":[1]}`, `{"about":[1,2]}`, `{}`, `[1,2]`} {
		var b PriceBound
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestProblemValidate(t *testing.T) {
	good := func() Problem {
		return Problem{Type: TypeProduct, Query: "q", Reward: Reward{Items: []Item{{ProductID: "1"}}}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Problem)
		wants string
	}{
		{"ok", func(*Problem) {}, ""},
		{"bad type", func(p *Problem) { p.Type = "cake" }, "unknown problem type"},
		{"no query", func(p *Problem) { p.Query = " " }, "empty query"},
		{"two product items", func(p *Problem) { p.Reward.Items = append(p.Reward.Items, Item{ProductID: "2"}) }, "has 2 items"},
		{"voucher missing", func(p *Problem) { p.Type = TypeVoucher }, "voucher present=false"},
		{"bad difficulty", func(p *Problem) { p.Difficulty = "brutal" }, "unknown difficulty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good()
			tc.edit(&p)
			err := p.Finish()
			if tc.wants == "" {
				if err != nil || p.ID == "" || len(p.Targets) != 1 {
					t.Fatalf("err %v, id %q, targets %v", err, p.ID, p.Targets)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wants) {
				t.Fatalf("err %v, want %q", err, tc.wants)
			}
		})
	}
	// The id ignores bookkeeping.
	a, b := good(), good()
	b.Difficulty, b.Cluster, b.Seed = Hard, "c1", 9
	a.Finish()
	b.Finish()
	if a.ID != b.ID {
		t.Errorf("ids differ: %s %s", a.ID, b.ID)
	}
}
