package browsertest

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"testing"
)

// canvas returns a w×h image filled with bg, with the first `share` of its
// rows (a fraction) painted fg.
func canvas(w, h int, bg, fg color.Color, share float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	rows := int(share * float64(h))
	draw.Draw(img, image.Rect(0, 0, w, rows), image.NewUniform(fg), image.Point{}, draw.Src)
	return img
}

// paletted is canvas as an *image.Paletted, an image type that
// CheckImageNotBlank converts.
func paletted(w, h int, bg, fg color.Color, share float64) *image.Paletted {
	src := canvas(w, h, bg, fg, share)
	img := image.NewPaletted(src.Bounds(), color.Palette{bg, fg})
	draw.Draw(img, img.Bounds(), src, image.Point{}, draw.Src)
	return img
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckNotBlank(t *testing.T) {
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	black := color.RGBA{0, 0, 0, 0xff}
	navy := color.RGBA{0x1d, 0x35, 0x57, 0xff}
	offWhite := color.RGBA{0xf8, 0xf8, 0xf8, 0xff}

	for _, tc := range []struct {
		name  string
		img   image.Image
		blank string // "" when not blank, else a part of the error
	}{
		{"all white", canvas(200, 100, white, white, 0), "differ from its most common colour #ffffff"},
		{"all one dark colour", canvas(200, 100, navy, navy, 0), "differ from its most common colour #1d3557"},
		{"white, 1% black", canvas(200, 100, white, black, 0.01), "(1.00%, under 2%)"},
		{"white, 10% off-white", canvas(200, 100, white, offWhite, 0.10), "are not white"},
		{"empty", image.NewRGBA(image.Rect(0, 0, 0, 0)), "it is 0x0"},
		{"white, 3% black", canvas(200, 100, white, black, 0.03), ""},
		{"white, navy header", canvas(1280, 800, white, navy, 0.10), ""},
		{"navy, white half", canvas(200, 100, navy, white, 0.5), ""},
		{"paletted, white with 5% navy", paletted(200, 100, white, navy, 0.05), ""},
		{"paletted, white", paletted(200, 100, white, navy, 0), "differ from its most common colour #ffffff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, form := range []string{"image", "png"} {
				if form == "png" && tc.img.Bounds().Empty() {
					continue // PNG has no empty images
				}
				var err error
				if form == "image" {
					err = CheckImageNotBlank(tc.img)
				} else {
					err = CheckNotBlank(encodePNG(t, tc.img))
				}
				switch {
				case tc.blank == "" && err != nil:
					t.Errorf("%s: found blank: %v", form, err)
				case tc.blank != "" && err == nil:
					t.Errorf("%s: not found blank", form)
				case tc.blank != "" && !strings.Contains(err.Error(), tc.blank):
					t.Errorf("%s: error %q lacks %q", form, err, tc.blank)
				}
			}
		})
	}

	if err := CheckNotBlank([]byte("not an image")); err == nil || !strings.Contains(err.Error(), "decoding") {
		t.Errorf("garbage: err = %v", err)
	}
}
