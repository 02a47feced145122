package browsertest

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // CheckNotBlank reads any format the screenshot may be in
	_ "image/png"
)

// Thresholds of CheckImageNotBlank.
const (
	// MinDifferentFraction is the least fraction of pixels that must differ
	// from the image's most common colour (its background).
	MinDifferentFraction = 0.02
	// MinNonWhiteFraction is the least fraction of pixels that must be
	// visibly non-white (some channel below NearWhite).
	MinNonWhiteFraction = 0.001
	// NearWhite is the 8-bit channel value from which a pixel counts as
	// white: anti-aliasing and #fafafa-style panels are still "white".
	NearWhite = 0xf0
)

// CheckNotBlank decodes an image (PNG or JPEG) and returns an error that
// says why if it is blank: see CheckImageNotBlank.
func CheckNotBlank(data []byte) error {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("decoding the screenshot (%d bytes): %w", len(data), err)
	}
	return CheckImageNotBlank(img)
}

// CheckImageNotBlank returns an error that says why if img is blank: empty,
// or nearly one single colour (fewer than MinDifferentFraction of its pixels
// differ from the most common colour), or nearly all white (fewer than
// MinNonWhiteFraction of its pixels are darker than NearWhite in some
// channel). A page that rendered nothing, a white error page and a page whose
// styles hid everything all fail; a page with real content passes.
func CheckImageNotBlank(img image.Image) error {
	bounds := img.Bounds()
	total := bounds.Dx() * bounds.Dy()
	if total == 0 {
		return fmt.Errorf("blank image: it is %dx%d", bounds.Dx(), bounds.Dy())
	}
	// One pass over 8-bit RGBA pixels; draw.Draw converts the other image
	// types (PNG decodes to *image.RGBA or *image.NRGBA, and those are
	// opaque for a screenshot, so premultiplying changes nothing there).
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(bounds)
		draw.Draw(rgba, bounds, img, bounds.Min, draw.Src)
	}
	counts := make(map[uint32]int)
	nonWhite := 0
	for y := 0; y < bounds.Dy(); y++ {
		row := rgba.Pix[y*rgba.Stride : y*rgba.Stride+4*bounds.Dx()]
		for i := 0; i < len(row); i += 4 {
			r, g, b, a := row[i], row[i+1], row[i+2], row[i+3]
			counts[uint32(r)<<24|uint32(g)<<16|uint32(b)<<8|uint32(a)]++
			if r < NearWhite || g < NearWhite || b < NearWhite {
				nonWhite++
			}
		}
	}
	var common uint32
	most := 0
	for c, n := range counts {
		if n > most {
			common, most = c, n
		}
	}
	different := total - most
	if float64(different) < MinDifferentFraction*float64(total) {
		return fmt.Errorf("blank image: %d of its %d pixels (%.2f%%, under %.0f%%) differ from its most common colour #%02x%02x%02x",
			different, total, 100*float64(different)/float64(total), 100*MinDifferentFraction, byte(common>>24), byte(common>>16), byte(common>>8))
	}
	if float64(nonWhite) < MinNonWhiteFraction*float64(total) {
		return fmt.Errorf("blank image: %d of its %d pixels (%.2f%%, under %.1f%%) are not white",
			nonWhite, total, 100*float64(nonWhite)/float64(total), 100*MinNonWhiteFraction)
	}
	return nil
}
