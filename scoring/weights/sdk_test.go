package weights

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

// sdkVectorsFile holds cases run through the Python SDK's own weight_utils.py
// by testdata/gen_vectors.py (which says how to regenerate it).
const sdkVectorsFile = "testdata/sdk_vectors.json.gz"

type sdkVectors struct {
	SDK struct {
		Commit string `json:"commit"`
	} `json:"sdk"`
	Numpy     string    `json:"numpy"`
	U16Sha256 string    `json:"u16_normalized_float_sha256"`
	Cases     []sdkCase `json:"cases"`
}

// sdkCase is one SDK call. Floats are big-endian IEEE bit patterns in hex
// (8 digits for float32, 16 for float64), so nothing is lost to decimal.
type sdkCase struct {
	Name            string   `json:"name"`
	N               int      `json:"n"`
	MinAllowed      int      `json:"min_allowed"`
	MaxWeightLimit  uint16   `json:"max_weight_limit"`
	ExcludeQuantile uint16   `json:"exclude_quantile"`
	UIDs            []uint16 `json:"uids"` // absent: 0..len(weights)-1
	Weights         []string `json:"weights"`
	// process_weights' result; its dtype is float64 in the uniform and
	// "fewer than min_allowed" branches.
	OutUIDs    []uint16 `json:"out_uids"`
	OutDtype   string   `json:"out_dtype"`
	OutWeights []string `json:"out_weights"`
	// convert_weights_and_uids_for_emit of that result, or the error it raised.
	EmitUIDs   []uint16 `json:"emit_uids"`
	EmitValues []uint16 `json:"emit_values"`
	EmitError  string   `json:"emit_error"`
	// The SDK's np.quantile call, when the main branch made it.
	QuantileQ     string `json:"quantile_q"`
	QuantileDtype string `json:"quantile_dtype"`
	QuantileValue string `json:"quantile_value"`
	// Set when the weights are a Policy vector: the policy that made them.
	Policy *struct {
		Kind         Kind     `json:"kind"`
		TopShare     float64  `json:"top_share"`
		TailShare    float64  `json:"tail_share"`
		BurnFraction float64  `json:"burn_fraction"`
		BurnUID      uint16   `json:"burn_uid"`
		Ranked       []uint16 `json:"ranked"`
	} `json:"policy"`
}

func readSDKVectors(t testing.TB) *sdkVectors {
	t.Helper()
	f, err := os.Open(sdkVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", sdkVectorsFile, err)
	}
	var v sdkVectors
	if err := json.NewDecoder(z).Decode(&v); err != nil {
		t.Fatalf("%s: %v", sdkVectorsFile, err)
	}
	if len(v.Cases) == 0 || v.U16Sha256 == "" {
		t.Fatalf("%s: no cases or no u16 limit digest", sdkVectorsFile)
	}
	return &v
}

// decodeFloats turns hex bit patterns of the given numpy dtype into the exact
// float64 values they hold.
func decodeFloats(t *testing.T, dtype string, hexes []string) []float64 {
	t.Helper()
	out := make([]float64, len(hexes))
	for i, h := range hexes {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatalf("value %d %q: %v", i, h, err)
		}
		switch {
		case dtype == "float32" && len(b) == 4:
			out[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
		case dtype == "float64" && len(b) == 8:
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(b))
		default:
			t.Fatalf("value %d %q is not a %s", i, h, dtype)
		}
	}
	return out
}

func decodeFloat32s(t *testing.T, hexes []string) []float32 {
	t.Helper()
	f := decodeFloats(t, "float32", hexes)
	out := make([]float32, len(f))
	for i, v := range f {
		out[i] = float32(v)
	}
	return out
}

// sameBits reports the first index where got and want differ as bit patterns
// (so -0 != 0), or -1.
func sameBits[F float](got, want []F) int {
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
			return i
		}
	}
	return -1
}

// firstDiff describes the difference sameBits found at i.
func firstDiff[F float](got, want []F, i int) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d values, want %d", len(got), len(want))
	}
	return fmt.Sprintf("got %v (%016x), want %v (%016x)", got[i], math.Float64bits(float64(got[i])), want[i], math.Float64bits(float64(want[i])))
}

// TestSDKVectors checks every vector bit for bit: the intermediate weights
// (float32 in the main branch, float64 in the others), the exclude-quantile
// threshold, the u16 values EmitWeightsForNetuid sends and, for policy
// vectors, that Policy.Vector makes the SDK's input.
func TestSDKVectors(t *testing.T) {
	v := readSDKVectors(t)
	t.Logf("%d cases from the SDK at %s with numpy %s", len(v.Cases), v.SDK.Commit, v.Numpy)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			w := decodeFloat32s(t, c.Weights)
			uids := c.UIDs
			if uids == nil {
				uids = seq(len(w))
			}
			lim := limit(c.MaxWeightLimit)

			if c.Policy != nil {
				p := Policy{Kind: c.Policy.Kind, TopShare: c.Policy.TopShare, TailShare: c.Policy.TailShare,
					BurnFraction: c.Policy.BurnFraction, BurnUID: c.Policy.BurnUID}
				got, err := p.Vector(c.Policy.Ranked, c.N)
				if err != nil {
					t.Fatalf("Policy.Vector: %v", err)
				}
				if i := sameBits(got, w); i >= 0 {
					t.Fatalf("Policy.Vector differs from the SDK's input first at %d: %s", i, firstDiff(got, w, i))
				}
			}

			if c.QuantileQ != "" {
				wantQ := decodeFloats(t, "float64", []string{c.QuantileQ})[0]
				wantLowest := decodeFloats(t, c.QuantileDtype, []string{c.QuantileValue})[0]
				_, nz := nonZero(uids, w)
				q, lowest := excludeThreshold(nz, c.MinAllowed, c.ExcludeQuantile)
				if q != wantQ || float64(lowest) != wantLowest {
					t.Fatalf("np.quantile(nz, %v) = %v (%x), got quantileLinear(nz, %v) = %v (%x)",
						wantQ, wantLowest, math.Float64bits(wantLowest), q, lowest, math.Float32bits(lowest))
				}
			}

			want := decodeFloats(t, c.OutDtype, c.OutWeights)
			pu, pw, err := processWeights(uids, w, c.N, c.MinAllowed, lim, c.ExcludeQuantile)
			if err != nil {
				t.Fatalf("processWeights: %v", err)
			}
			if !slices.Equal(pu, c.OutUIDs) {
				t.Fatalf("uids: got %v, SDK %v", pu, c.OutUIDs)
			}
			if i := sameBits(pw, want); i >= 0 {
				t.Fatalf("%s weights differ first at %d: %s", c.OutDtype, i, firstDiff(pw, want, i))
			}
			pu32, pw32, err := ProcessWeightsForNetuid(uids, w, c.N, c.MinAllowed, lim, c.ExcludeQuantile)
			if err != nil {
				t.Fatalf("ProcessWeightsForNetuid: %v", err)
			}
			want32 := make([]float32, len(want))
			for i, x := range want {
				want32[i] = float32(x)
			}
			if !slices.Equal(pu32, c.OutUIDs) {
				t.Fatalf("ProcessWeightsForNetuid uids: got %v, SDK %v", pu32, c.OutUIDs)
			}
			if i := sameBits(pw32, want32); i >= 0 {
				t.Fatalf("ProcessWeightsForNetuid weights differ first at %d: %s", i, firstDiff(pw32, want32, i))
			}

			eu, ev, err := EmitWeightsForNetuid(uids, w, c.N, c.MinAllowed, lim, c.ExcludeQuantile)
			if c.EmitError != "" {
				if err == nil {
					t.Fatalf("EmitWeightsForNetuid gave %v %v; the SDK raised %q", eu, ev, c.EmitError)
				}
				return
			}
			if err != nil {
				t.Fatalf("EmitWeightsForNetuid: %v", err)
			}
			if !slices.Equal(eu, c.EmitUIDs) || !slices.Equal(ev, c.EmitValues) {
				t.Fatalf("emit: got %v %v, SDK %v %v", eu, ev, c.EmitUIDs, c.EmitValues)
			}
			if c.OutDtype == "float32" {
				// The SDK converts this very float32 array, so the public
				// two-step path must agree too.
				cu, cv, err := ConvertWeightsAndUidsForEmit(pu32, pw32)
				if err != nil || !slices.Equal(cu, c.EmitUIDs) || !slices.Equal(cv, c.EmitValues) {
					t.Fatalf("ConvertWeightsAndUidsForEmit: got %v %v (%v), SDK %v %v", cu, cv, err, c.EmitUIDs, c.EmitValues)
				}
			}
		})
	}
}

// TestLimitFromFractionAllU16 recovers every on-chain max_weight_limit from the
// float32 the validator passes, and checks that raw/65535 in Go is the SDK's
// u16_normalized_float for all of them (digest recorded by the generator).
func TestLimitFromFractionAllU16(t *testing.T) {
	v := readSDKVectors(t)
	h := sha256.New()
	var buf [8]byte
	bad := 0
	for raw := range U16Max + 1 {
		want := float64(raw) / U16Max
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(want))
		h.Write(buf[:])
		if got := limitFromFraction(limit(uint16(raw))); got != want {
			if bad++; bad <= 5 {
				t.Errorf("raw %d: limitFromFraction(%v) = %v, want %v", raw, limit(uint16(raw)), got, want)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of 65536 limits not recovered", bad)
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != v.U16Sha256 {
		t.Fatalf("raw/65535 digest %s, the SDK's u16_normalized_float gives %s", got, v.U16Sha256)
	}
}
