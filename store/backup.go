package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dgraph-io/badger/v4/pb"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"
)

// Backup file layout. Badger's backup stream (DB.Backup) is a sequence of
// frames, each a little-endian uint64 length followed by a protobuf KVList.
// Backup wraps that stream so a wrong, truncated or damaged file is refused
// before anything is trusted:
//
//	header  "ARENABAK" | format uint32 BE | SchemaVersion uint32 BE   (16 bytes)
//	body    Badger's frames, unchanged
//	footer  0xFFFFFFFFFFFFFFFF | body bytes uint64 BE | live keys uint64 BE |
//	        CRC-32C uint32 BE of body and the two footer numbers           (28 bytes)
//
// The footer starts where a frame length would, with a value no frame can
// have. Anything after the footer is an error.
const (
	backupMagic        = "ARENABAK"
	backupFormat       = uint32(1)
	backupHeaderLen    = 16
	footerSentinel     = ^uint64(0)
	footerFieldsLen    = 20
	maxBackupFrame     = 1 << 30 // far above Badger's ~100 MB stream batches
	restorePendingSets = 256
	// badgerBitDelete is Badger's tombstone bit in KV.Meta (value.go,
	// bitDelete). It is only used to count live keys for the summary.
	badgerBitDelete = 1 << 0
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// BackupInfo describes a finished backup.
type BackupInfo struct {
	Version uint64 // Badger version of the newest entry (DB.Backup's result)
	Keys    int64  // live keys written
	Bytes   int64  // bytes written to the writer
}

// RestoreInfo describes a finished restore.
type RestoreInfo struct {
	Keys  int64 // live keys in the backup
	Bytes int64 // bytes read from the reader
}

// Backup writes a full backup of the database to w (Badger's DB.Backup with
// since=0, framed as described above). It is consistent: it reads one
// snapshot while the store stays usable.
func (s *Store) Backup(w io.Writer) (BackupInfo, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	header := make([]byte, 0, backupHeaderLen)
	header = append(header, backupMagic...)
	header = binary.BigEndian.AppendUint32(header, backupFormat)
	header = binary.BigEndian.AppendUint32(header, SchemaVersion)
	if _, err := bw.Write(header); err != nil {
		return BackupInfo{}, fmt.Errorf("%s: backup: %w", s.opts.label(), err)
	}
	fw := &frameWriter{w: bw, crc: crc32.New(crcTable)}
	version, err := s.db.Backup(fw, 0)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("%s: backup: %w", s.opts.label(), err)
	}
	if len(fw.pending) > 0 {
		return BackupInfo{}, fmt.Errorf("%s: backup: stream ended inside a frame (%d bytes left)", s.opts.label(), len(fw.pending))
	}
	footer := binary.LittleEndian.AppendUint64(nil, footerSentinel)
	fields := binary.BigEndian.AppendUint64(nil, uint64(fw.body))
	fields = binary.BigEndian.AppendUint64(fields, uint64(fw.keys))
	fw.crc.Write(fields)
	footer = append(footer, fields...)
	footer = binary.BigEndian.AppendUint32(footer, fw.crc.Sum32())
	if _, err := bw.Write(footer); err != nil {
		return BackupInfo{}, fmt.Errorf("%s: backup: %w", s.opts.label(), err)
	}
	if err := bw.Flush(); err != nil {
		return BackupInfo{}, fmt.Errorf("%s: backup: %w", s.opts.label(), err)
	}
	return BackupInfo{Version: version, Keys: fw.keys, Bytes: cw.n}, nil
}

// Restore loads a backup made by Backup into opts.Dir, which must not exist
// or be an empty directory: Restore never merges into or overwrites data.
// The backup's format, checksum and schema version are verified; if
// anything fails, whatever Restore wrote is removed again, leaving the
// directory as it was. Only opts.Dir is used from opts.
func Restore(opts Options, r io.Reader, log zerolog.Logger) (RestoreInfo, error) {
	if opts.InMemory || opts.Dir == "" {
		return RestoreInfo{}, errors.New("restore: a data directory is required")
	}
	label := opts.label()
	parent := log
	log = log.With().Str("component", "store").Logger()
	existed, err := checkRestoreTarget(opts.Dir)
	if err != nil {
		return RestoreInfo{}, err
	}
	fr := &frameReader{r: bufio.NewReaderSize(r, 1<<20), crc: crc32.New(crcTable)}
	if err := fr.readHeader(); err != nil {
		return RestoreInfo{}, fmt.Errorf("restore: %w", err)
	}

	db, err := openBadger(Options{Dir: opts.Dir}, parent)
	if err != nil {
		// openBadger may have created the directory or files before failing.
		_ = removeRestored(opts.Dir, existed)
		return RestoreInfo{}, fmt.Errorf("restore: %w", err)
	}
	fail := func(err error) (RestoreInfo, error) {
		_ = db.Close()
		if cerr := removeRestored(opts.Dir, existed); cerr != nil {
			log.Error().Err(cerr).Str("dir", opts.Dir).Msg("could not remove a partial restore; delete the directory by hand")
		}
		return RestoreInfo{}, err
	}
	if err := db.Load(fr, restorePendingSets); err != nil {
		if fr.err != nil {
			return fail(fmt.Errorf("restore: %w", fr.err))
		}
		return fail(fmt.Errorf("restore: damaged backup: %w", err))
	}
	if !fr.done {
		return fail(errors.New("restore: backup ended before its footer"))
	}
	empty, err := checkSchema(db, label)
	if err != nil {
		return fail(fmt.Errorf("restore: %w", err))
	}
	if empty {
		return fail(errors.New("restore: the backup holds no data"))
	}
	if err := db.Close(); err != nil {
		if cerr := removeRestored(opts.Dir, existed); cerr != nil {
			log.Error().Err(cerr).Str("dir", opts.Dir).Msg("could not remove a partial restore; delete the directory by hand")
		}
		return RestoreInfo{}, fmt.Errorf("restore: %s: close: %w", label, err)
	}
	return RestoreInfo{Keys: int64(fr.keys), Bytes: fr.pos}, nil
}

// checkRestoreTarget refuses anything but a missing path or an empty
// directory, and reports whether the directory already existed.
func checkRestoreTarget(dir string) (existed bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("restore: store %s: %w", dir, err)
	case len(entries) > 0:
		return true, fmt.Errorf("restore: store %s: %w (%d entries); restore only into a new or empty directory, data is never overwritten",
			dir, ErrNotEmpty, len(entries))
	}
	return true, nil
}

// removeRestored undoes a failed restore: the directory was missing or empty
// before, so everything in it now was written by Restore.
func removeRestored(dir string, existed bool) error {
	if !existed {
		return os.RemoveAll(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
	}
	return errors.Join(errs...)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// frameWriter sits between DB.Backup and the output: it passes Badger's
// frames through whole, checksums them and counts the live keys in them.
type frameWriter struct {
	w       io.Writer
	crc     hash.Hash32
	body    int64
	keys    int64
	pending []byte
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.pending = append(f.pending, p...)
	consumed := 0
	for len(f.pending)-consumed >= 8 {
		rest := f.pending[consumed:]
		size := binary.LittleEndian.Uint64(rest)
		if size > maxBackupFrame {
			return 0, fmt.Errorf("backup frame of %d bytes exceeds the %d byte limit", size, maxBackupFrame)
		}
		end := 8 + int(size)
		if len(rest) < end {
			break
		}
		frame := rest[:end]
		live, err := countLiveKeys(frame[8:])
		if err != nil {
			return 0, err
		}
		if _, err := f.w.Write(frame); err != nil {
			return 0, err
		}
		f.crc.Write(frame)
		f.body += int64(end)
		f.keys += live
		consumed += end
	}
	// Keep the unfinished tail at the front of the buffer for reuse.
	f.pending = f.pending[:copy(f.pending, f.pending[consumed:])]
	return len(p), nil
}

// countLiveKeys counts distinct keys whose newest version in the list is
// neither deleted nor expired. Badger emits every version of a key together,
// newest first.
func countLiveKeys(body []byte) (int64, error) {
	var list pb.KVList
	if err := proto.Unmarshal(body, &list); err != nil {
		return 0, fmt.Errorf("decode backup frame: %w", err)
	}
	now := uint64(time.Now().Unix())
	var n int64
	var prev []byte
	for i, kv := range list.Kv {
		if i > 0 && bytes.Equal(kv.Key, prev) {
			continue
		}
		prev = kv.Key
		deleted := len(kv.Meta) > 0 && kv.Meta[0]&badgerBitDelete != 0
		expired := kv.ExpiresAt != 0 && kv.ExpiresAt <= now
		if !deleted && !expired {
			n++
		}
	}
	return n, nil
}

// frameReader sits between the backup file and DB.Load. It hands Load only
// whole frames it has already read (so a damaged length can never make
// Load allocate gigabytes or read past the end), and returns io.EOF only
// after the footer's length and checksum match.
type frameReader struct {
	r    *bufio.Reader
	crc  hash.Hash32
	pos  int64 // bytes consumed from r
	body int64
	keys uint64

	frame []byte
	off   int
	done  bool
	err   error
}

var errNotBackup = errors.New("input is not an arena backup")

func (f *frameReader) readHeader() error {
	var h [backupHeaderLen]byte
	n, err := io.ReadFull(f.r, h[:])
	f.pos += int64(n)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the input is empty", errNotBackup)
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("read backup header: %w", err)
	case err != nil || string(h[:8]) != backupMagic:
		return fmt.Errorf("%w (no %s header; make backups with `arena backup`)", errNotBackup, backupMagic)
	}
	if format := binary.BigEndian.Uint32(h[8:12]); format != backupFormat {
		return fmt.Errorf("backup format %d is not supported by this arena build (it reads format %d)", format, backupFormat)
	}
	if schema := binary.BigEndian.Uint32(h[12:16]); schema != SchemaVersion {
		return &schemaError{label: "backup", got: schema, want: SchemaVersion}
	}
	return nil
}

func (f *frameReader) Read(p []byte) (int, error) {
	for f.off == len(f.frame) {
		if f.done {
			return 0, io.EOF
		}
		if f.err != nil {
			return 0, f.err
		}
		if err := f.next(); err != nil {
			f.err = err
			return 0, err
		}
	}
	n := copy(p, f.frame[f.off:])
	f.off += n
	return n, nil
}

func (f *frameReader) truncated() error {
	return fmt.Errorf("backup is truncated: it ends at byte %d, before its footer", f.pos)
}

func (f *frameReader) next() error {
	var hdr [8]byte
	n, err := io.ReadFull(f.r, hdr[:])
	f.pos += int64(n)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return f.truncated()
	}
	if err != nil {
		return fmt.Errorf("read backup: %w", err)
	}
	size := binary.LittleEndian.Uint64(hdr[:])
	if size == footerSentinel {
		return f.footer()
	}
	if size > maxBackupFrame {
		return fmt.Errorf("damaged backup: frame at byte %d claims %d bytes (limit %d)", f.pos-8, size, maxBackupFrame)
	}
	buf := bytes.NewBuffer(f.frame[:0])
	buf.Write(hdr[:])
	copied, err := io.CopyN(buf, f.r, int64(size))
	f.pos += copied
	if errors.Is(err, io.EOF) {
		return f.truncated()
	}
	if err != nil {
		return fmt.Errorf("read backup: %w", err)
	}
	f.frame, f.off = buf.Bytes(), 0
	f.crc.Write(f.frame)
	f.body += int64(len(f.frame))
	return nil
}

func (f *frameReader) footer() error {
	var b [footerFieldsLen]byte
	n, err := io.ReadFull(f.r, b[:])
	f.pos += int64(n)
	if err != nil {
		return f.truncated()
	}
	body, keys, sum := binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16]), binary.BigEndian.Uint32(b[16:20])
	f.crc.Write(b[:16])
	if body != uint64(f.body) || sum != f.crc.Sum32() {
		return fmt.Errorf("damaged backup: checksum or length mismatch (footer says %d body bytes, read %d)", body, f.body)
	}
	if _, err := f.r.ReadByte(); !errors.Is(err, io.EOF) {
		if err != nil {
			return fmt.Errorf("read backup: %w", err)
		}
		return errors.New("damaged backup: data after the footer")
	}
	f.keys, f.done = keys, true
	f.frame, f.off = nil, 0
	return nil
}
