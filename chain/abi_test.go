package chain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// referenceABIDir holds subtensor's published precompile ABIs as upstream
// ships them (testdata/subtensor-abi/README.md); refreshing them there is
// how a drift in subtensor shows up in these tests.
const referenceABIDir = "testdata/subtensor-abi"

func loadReferenceABI(t *testing.T, name string) (abi.ABI, []byte) {
	t.Helper()
	path := filepath.Join(referenceABIDir, name+".abi")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reference ABI %s: %v", path, err)
	}
	parsed, err := abi.JSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("reference ABI %s: %v", path, err)
	}
	return parsed, raw
}

// TestSelectorsMatchReference checks every method the client calls against
// subtensor's published ABIs: same selector, same input and output types.
func TestSelectorsMatchReference(t *testing.T) {
	for file, methods := range UsedMethods {
		ref, _ := loadReferenceABI(t, file)
		ours, err := ParseABI(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range methods {
			t.Run(file+"."+name, func(t *testing.T) {
				have, ok := ours.Methods[name]
				if !ok {
					t.Fatalf("client ABI lacks %s", name)
				}
				want, ok := ref.Methods[name]
				if !ok {
					t.Fatalf("reference ABI lacks %s", name)
				}
				if !bytes.Equal(have.ID, want.ID) {
					t.Fatalf("selector %x, reference %x", have.ID, want.ID)
				}
				if have.Sig != want.Sig {
					t.Fatalf("signature %s, reference %s", have.Sig, want.Sig)
				}
				if len(have.Outputs) != len(want.Outputs) {
					t.Fatalf("%d outputs, reference %d", len(have.Outputs), len(want.Outputs))
				}
				for i := range want.Outputs {
					if have.Outputs[i].Type.String() != want.Outputs[i].Type.String() {
						t.Fatalf("output %d is %s, reference %s", i, have.Outputs[i].Type, want.Outputs[i].Type)
					}
				}
			})
		}
	}
}

// TestEmbeddedABIsAreReferenceCopies keeps the embedded copies byte-identical
// to the reference, so a refreshed reference is noticed.
func TestEmbeddedABIsAreReferenceCopies(t *testing.T) {
	for _, name := range []string{"metagraph", "subnet", "neuron", "uidLookup", "addressMapping"} {
		t.Run(name, func(t *testing.T) {
			_, ref := loadReferenceABI(t, name)
			ours, err := abiFiles.ReadFile("abi/" + name + ".abi")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ref, ours) {
				t.Fatalf("chain/abi/%s.abi differs from the reference; copy it again", name)
			}
		})
	}
}
