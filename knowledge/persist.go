package knowledge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/rs/zerolog"

	"arena/internal/atomicfile"
	"arena/shop"
)

// The corpus file keeps what Build derives from a catalog (its pages and
// facts), because deriving reads every product: 35 s for 2.5 million on
// a 2-core machine, the longest part of a validator's start once the
// search index is mapped. Its layout:
//
//	magic "ARENAKNW" | format u32 | derivation u32 | key [32] | seed u64 |
//	payload length u64 | payload (JSON pages and facts) | CRC-32C u32 of
//	everything before it | magic
const (
	corpusFileMagic  = "ARENAKNW"
	corpusFileFormat = 1
	// derivation names the rules that turn a catalog into pages and facts
	// (derive, brandFacts, the glossary). Change it with them: a corpus
	// file written by other rules is then derived again, not served.
	derivation = 1
	headerSize = 8 + 4 + 4 + 32 + 8 + 8
)

// FileSuffix is what the corpus file's name adds to its catalog's index
// file name.
const FileSuffix = ".knowledge"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errStale marks a corpus file of another catalog, seed or derivation.
var errStale = errors.New("written for another catalog or derivation")

// FileInfo says how OpenFile got its corpus.
type FileInfo struct {
	Path string
	// Built is true when the corpus was derived from the catalog, false
	// when it was read from the file.
	Built bool
	// Persisted is false when it was built and could not be written.
	Persisted bool
	Took      time.Duration
}

type corpusPayload struct {
	Pages []Page `json:"pages"`
	Facts []Fact `json:"facts"`
}

// OpenFile is Build with its derivation kept in the file at path. key
// identifies the catalog exactly (shop.IndexFileInfo.Identity): the file
// is used only for the same key, seed and derivation and when its checksum
// holds; otherwise the corpus is derived and the file written again
// (atomically), a damaged file after one warning line. A file that cannot
// be written costs a warning, not the start. opts.Extra is never stored.
func OpenFile(ctx context.Context, cat *shop.Catalog, path string, key [32]byte, opts Options, log zerolog.Logger) (_ *Corpus, _ FileInfo, err error) {
	if cat == nil {
		return nil, FileInfo{}, errors.New("knowledge: nil catalog")
	}
	defer shop.RecoverReadError(&err)
	log = log.With().Str("component", "knowledge").Logger()
	info := FileInfo{Path: path}
	start := time.Now()
	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	payload, err := readCorpusFile(path, key, seed)
	switch {
	case err == nil:
		if c, err := fromPayload(ctx, payload, cat, opts, log); err == nil {
			info.Persisted, info.Took = true, time.Since(start)
			log.Info().Str("path", path).Int("pages", c.Len()).Dur("took_ms", info.Took.Round(time.Millisecond)).Msg("knowledge corpus read")
			return c, info, nil
		} else if ctx.Err() != nil {
			return nil, info, ctx.Err()
		} else {
			log.Warn().Str("path", path).Err(err).Msg("the knowledge corpus file does not match its catalog; deriving it again")
		}
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errStale):
		log.Info().Str("path", path).Msg("the catalog changed since the knowledge corpus file was written; deriving it again")
	default:
		log.Warn().Str("path", path).Err(err).Msg("the knowledge corpus file is damaged or unreadable; deriving it again")
	}
	info.Built = true
	pages, facts, err := derive(ctx, cat, seed)
	if err != nil {
		return nil, info, err
	}
	if err := writeCorpusFile(path, key, seed, corpusPayload{Pages: pages, Facts: facts}); err != nil {
		log.Warn().Str("path", path).Err(err).Msg("cannot write the knowledge corpus file; the next start derives it again")
	} else {
		info.Persisted = true
	}
	c, err := newCorpus(ctx, append(pages, opts.Extra...), facts, log)
	info.Took = time.Since(start)
	if err == nil {
		log.Info().Int("pages", c.Len()).Int("facts", len(facts)).Dur("took_ms", info.Took.Round(time.Millisecond)).Msg("knowledge corpus built")
	}
	return c, info, err
}

// fromPayload indexes stored pages, checking that every fact's products
// lie in the catalog (a key collision or a bug would otherwise surface as
// a panic in a tool call).
func fromPayload(ctx context.Context, p *corpusPayload, cat *shop.Catalog, opts Options, log zerolog.Logger) (*Corpus, error) {
	for _, f := range p.Facts {
		for _, i := range f.Products {
			if i < 0 || int(i) >= cat.Len() {
				return nil, fmt.Errorf("fact %s names product %d of %d", f.URL, i, cat.Len())
			}
		}
	}
	return newCorpus(ctx, append(p.Pages, opts.Extra...), p.Facts, log)
}

func readCorpusFile(path string, key [32]byte, seed uint64) (*corpusPayload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < headerSize+4+len(corpusFileMagic) || string(data[:8]) != corpusFileMagic ||
		string(data[len(data)-len(corpusFileMagic):]) != corpusFileMagic {
		return nil, fmt.Errorf("%d bytes: truncated, or not a corpus file", len(data))
	}
	le := binary.LittleEndian
	body := data[:len(data)-len(corpusFileMagic)-4]
	if le.Uint32(data[len(body):]) != crc32.Checksum(body, castagnoli) {
		return nil, errors.New("checksum mismatch: the file is damaged")
	}
	if f := le.Uint32(data[8:]); f != corpusFileFormat {
		return nil, fmt.Errorf("format %d, want %d: %w", f, corpusFileFormat, errStale)
	}
	if le.Uint32(data[12:]) != derivation || !bytes.Equal(data[16:48], key[:]) || le.Uint64(data[48:]) != seed {
		return nil, errStale
	}
	n := le.Uint64(data[56:])
	if n != uint64(len(body)-headerSize) {
		return nil, fmt.Errorf("payload of %d bytes in a %d-byte body", n, len(body)-headerSize)
	}
	var p corpusPayload
	if err := json.Unmarshal(body[headerSize:], &p); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return &p, nil
}

func writeCorpusFile(path string, key [32]byte, seed uint64, p corpusPayload) error {
	payload, err := json.Marshal(p)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	head := make([]byte, 0, headerSize)
	head = append(head, corpusFileMagic...)
	head = le.AppendUint32(head, corpusFileFormat)
	head = le.AppendUint32(head, derivation)
	head = append(head, key[:]...)
	head = le.AppendUint64(head, seed)
	head = le.AppendUint64(head, uint64(len(payload)))
	crc := crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, payload)
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		for _, b := range [][]byte{head, payload, le.AppendUint32(nil, crc), []byte(corpusFileMagic)} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}
