package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"
)

type testEpisode struct {
	Miner  uint16   `json:"miner"`
	Block  uint64   `json:"block"`
	Steps  []string `json:"steps"`
	Reward float64  `json:"reward"`
}

var (
	testEpisodes = NewKeyspace(0x20, "test-episodes", JSON[testEpisode]{})
	testByMiner  = NewKeyspace(0x22, "test-by-miner", JSON[struct{}]{})
	testCursor   = NewKeyspace(0x30, "test-cursor", JSON[uint64]{})
)

// fillStore writes several keyspaces, with overwrites and deletes, and
// returns the number of live keys including the schema key.
func fillStore(t *testing.T, s *Store) int64 {
	t.Helper()
	const n = 300
	update(t, s, func(txn *badger.Txn) error {
		for i := range uint64(n) {
			ep := testEpisode{Miner: uint16(i % 7), Block: 1000 + i, Steps: []string{"search", fmt.Sprint("buy ", i)}, Reward: float64(i) / n}
			if err := testEpisodes.Put(txn, testEpisodes.Key(U64(i)), ep); err != nil {
				return err
			}
			if err := testByMiner.Put(txn, testByMiner.Key(U16(ep.Miner), U64(i)), struct{}{}); err != nil {
				return err
			}
		}
		return testCursor.Put(txn, testCursor.Key(String("head")), 1)
	})
	// Overwrites and deletes leave older versions and tombstones behind.
	update(t, s, func(txn *badger.Txn) error {
		for i := range uint64(10) {
			if err := testEpisodes.Delete(txn, testEpisodes.Key(U64(i))); err != nil {
				return err
			}
			if err := testByMiner.Delete(txn, testByMiner.Key(U16(uint16(i%7)), U64(i))); err != nil {
				return err
			}
		}
		return testCursor.Put(txn, testCursor.Key(String("head")), 4242)
	})
	return 2*(n-10) + 1 + 1
}

// dump returns every key and value in the database.
func dump(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	view(t, s, func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = string(v)
		}
		return nil
	})
	return out
}

func backupBytes(t *testing.T, s *Store) ([]byte, BackupInfo) {
	t.Helper()
	var buf bytes.Buffer
	info, err := s.Backup(&buf)
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if info.Bytes != int64(buf.Len()) {
		t.Errorf("BackupInfo.Bytes %d, wrote %d", info.Bytes, buf.Len())
	}
	return buf.Bytes(), info
}

func TestBackupRestoreRoundTrip(t *testing.T) {
	src, _ := openTemp(t)
	live := fillStore(t, src)
	want := dump(t, src)
	if int64(len(want)) != live {
		t.Fatalf("source holds %d keys, fillStore says %d", len(want), live)
	}
	data, info := backupBytes(t, src)
	if info.Keys != live {
		t.Errorf("BackupInfo.Keys %d, want %d", info.Keys, live)
	}
	if info.Version == 0 {
		t.Error("BackupInfo.Version is 0")
	}

	for _, target := range []string{"missing", "empty"} {
		t.Run(target, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "restored")
			if target == "empty" {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			rinfo, err := Restore(Options{Dir: dir}, bytes.NewReader(data), zerolog.Nop())
			if err != nil {
				t.Fatalf("Restore: %v", err)
			}
			if rinfo.Keys != live || rinfo.Bytes != int64(len(data)) {
				t.Errorf("RestoreInfo %+v, want %d keys and %d bytes", rinfo, live, len(data))
			}
			dst := openAt(t, dir)
			if got := dump(t, dst); !reflect.DeepEqual(got, want) {
				t.Fatalf("restored store differs: %d keys, want %d", len(got), len(want))
			}
			// Typed access works on the restored data, deletes included.
			view(t, dst, func(txn *badger.Txn) error {
				if _, ok, err := testEpisodes.Get(txn, testEpisodes.Key(U64(3))); ok || err != nil {
					t.Errorf("deleted episode restored: ok=%v err=%v", ok, err)
				}
				ep, ok, err := testEpisodes.Get(txn, testEpisodes.Key(U64(123)))
				if !ok || err != nil || ep.Block != 1123 {
					t.Errorf("episode 123 = %+v %v %v", ep, ok, err)
				}
				head, _, err := testCursor.Get(txn, testCursor.Key(String("head")))
				if head != 4242 || err != nil {
					t.Errorf("cursor %d %v, want 4242", head, err)
				}
				return nil
			})
			// The restored store takes new writes after the restored ones.
			update(t, dst, func(txn *badger.Txn) error {
				return testCursor.Put(txn, testCursor.Key(String("head")), 4243)
			})
			view(t, dst, func(txn *badger.Txn) error {
				head, _, err := testCursor.Get(txn, testCursor.Key(String("head")))
				if head != 4243 || err != nil {
					t.Errorf("cursor after write %d %v, want 4243", head, err)
				}
				return nil
			})
		})
	}
}

func TestRestoreRefusesNonEmptyDir(t *testing.T) {
	src, _ := openTemp(t)
	fillStore(t, src)
	data, _ := backupBytes(t, src)

	dir := t.TempDir()
	precious := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(precious, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Restore(Options{Dir: dir}, bytes.NewReader(data), zerolog.Nop())
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("error %v, want ErrNotEmpty", err)
	}
	if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "never overwritten") {
		t.Errorf("error %q should name the directory and say why", err)
	}
	if got, err := os.ReadFile(precious); err != nil || string(got) != "keep me" {
		t.Errorf("existing file touched: %q %v", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory now has %d entries, want 1", len(entries))
	}

	// A live store is not empty either.
	_, liveDir := openTemp(t)
	if _, err := Restore(Options{Dir: liveDir}, bytes.NewReader(data), zerolog.Nop()); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("restore over a store: %v, want ErrNotEmpty", err)
	}
}

func TestRestoreRejectsBadInput(t *testing.T) {
	src, _ := openTemp(t)
	fillStore(t, src)
	good, _ := backupBytes(t, src)

	corrupt := func(mutate func(b []byte) []byte) []byte {
		return mutate(bytes.Clone(good))
	}
	tests := []struct {
		name    string
		input   []byte
		wantErr string
		wantIs  error
	}{
		{"empty", nil, "not an arena backup: the input is empty", nil},
		{"text", []byte("hello, this is not a backup at all\n"), "not an arena backup (no ARENABAK header", nil},
		{"short", []byte("ARENA"), "not an arena backup", nil},
		{"badger stream without header", good[backupHeaderLen:], "not an arena backup", nil},
		{"future format", corrupt(func(b []byte) []byte { binary.BigEndian.PutUint32(b[8:], 9); return b }), "backup format 9 is not supported", nil},
		{"other schema", corrupt(func(b []byte) []byte { binary.BigEndian.PutUint32(b[12:], 2); return b }),
			"backup: schema version 2, this arena build expects 1", ErrSchemaMismatch},
		{"header only", good[:backupHeaderLen], "truncated", nil},
		{"truncated body", good[:len(good)/2], "truncated", nil},
		{"missing footer", good[:len(good)-28], "truncated", nil},
		{"truncated footer", good[:len(good)-5], "truncated", nil},
		{"flipped byte", corrupt(func(b []byte) []byte { b[len(b)-100] ^= 0x55; return b }), "damaged backup", nil},
		{"huge frame length", corrupt(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[backupHeaderLen:], 1<<62)
			return b
		}), "damaged backup: frame at byte 16 claims", nil},
		{"plausible frame length", corrupt(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[backupHeaderLen:], 1<<29)
			return b
		}), "truncated", nil},
		{"trailing data", append(bytes.Clone(good), 0), "data after the footer", nil},
		{"wrong key count", corrupt(func(b []byte) []byte { b[len(b)-5]++; return b }), "checksum", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "target")
			_, err := Restore(Options{Dir: dir}, bytes.NewReader(tt.input), zerolog.Nop())
			if err == nil {
				t.Fatal("Restore accepted bad input")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if _, statErr := os.Stat(dir); !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("failed restore left %s behind (stat: %v)", dir, statErr)
			}
		})
	}
}

func TestFailedRestoreKeepsEmptyDir(t *testing.T) {
	src, _ := openTemp(t)
	fillStore(t, src)
	good, _ := backupBytes(t, src)
	dir := t.TempDir()
	if _, err := Restore(Options{Dir: dir}, bytes.NewReader(good[:len(good)-1]), zerolog.Nop()); err == nil {
		t.Fatal("Restore accepted a truncated backup")
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Fatalf("directory after failed restore: %d entries, %v; want it empty", len(entries), err)
	}
	// And it can be retried.
	if _, err := Restore(Options{Dir: dir}, bytes.NewReader(good), zerolog.Nop()); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

func TestRestoreRequiresDir(t *testing.T) {
	for _, opts := range []Options{{}, {InMemory: true}} {
		if _, err := Restore(opts, bytes.NewReader(nil), zerolog.Nop()); err == nil {
			t.Errorf("Restore(%+v) succeeded", opts)
		}
	}
}

func TestBackupOfInMemoryStore(t *testing.T) {
	s, err := Open(Options{InMemory: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fillStore(t, s)
	want := dump(t, s)
	data, _ := backupBytes(t, s)
	dir := filepath.Join(t.TempDir(), "restored")
	if _, err := Restore(Options{Dir: dir}, bytes.NewReader(data), zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, openAt(t, dir)); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored %d keys, want %d", len(got), len(want))
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after -= len(p); w.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestBackupWriteError(t *testing.T) {
	s, _ := openTemp(t)
	fillStore(t, s)
	for _, after := range []int{0, 100} {
		_, err := s.Backup(&failingWriter{after: after})
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("after %d bytes: error %v, want the writer's error", after, err)
		}
	}
}
