package shop

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Services is the set of marketplace services a product is offered with.
type Services uint8

// The four ShoppingBench services. The bit order is also the order names
// are written in.
const (
	// ServiceOfficial is LazMall: official store, authenticity guarantee.
	ServiceOfficial Services = 1 << iota
	// ServiceFreeShipping is free delivery.
	ServiceFreeShipping
	// ServiceCOD is cash on delivery.
	ServiceCOD
	// ServiceFlashsale is LazFlash: a limited-time promotion.
	ServiceFlashsale

	allServices = ServiceOfficial | ServiceFreeShipping | ServiceCOD | ServiceFlashsale
)

// serviceNames are the wire names, indexed by bit position. It is a
// function returning an array value so no caller can change the table.
func serviceNames() [4]string { return [4]string{"official", "freeShipping", "COD", "flashsale"} }

// ServiceNames lists the valid service names in canonical order.
func ServiceNames() []string { n := serviceNames(); return n[:] }

// ParseService maps a service name to its bit. Matching ignores case so
// "cod" and "FreeShipping" work; the canonical spelling is what is written.
func ParseService(name string) (Services, bool) {
	for i, n := range serviceNames() {
		if strings.EqualFold(name, n) {
			return 1 << i, true
		}
	}
	return 0, false
}

// Has reports whether every service in x is in s.
func (s Services) Has(x Services) bool { return s&x == x }

// Names returns the services' wire names in canonical order; never nil.
func (s Services) Names() []string {
	out := make([]string, 0, 4)
	for i, n := range serviceNames() {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String joins the names with commas, as find_product's argument takes them.
func (s Services) String() string { return strings.Join(s.Names(), ",") }

// Option is one key/value pair of a SKU variant, such as size=xl.
type Option struct {
	Key   string
	Value string
}

// SKU is one variant of a product: its option values, ordered by key.
type SKU []Option

// Value returns the variant's value for key.
func (s SKU) Value(key string) (string, bool) {
	for _, o := range s {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// Attribute is one product attribute with its values, such as
// material=[cotton, polyester].
type Attribute struct {
	Key    string
	Values []string
}

// Product is one catalog entry with ShoppingBench's fields. In JSON,
// SKUOptions is the object {"1": {k: v}, "2": ...} and Attributes is
// {k: [v, ...]}.
//
// Products obtained from a Catalog are shared with every other reader and
// must be treated as read-only.
type Product struct {
	ProductID        string
	ShopID           string
	Brand            string
	Category         string // "Top > Sub > Leaf"
	Title            string
	ShortDescription string
	Description      string
	Specification    string
	Price            float64
	SoldCount        int64
	SKUOptions       []SKU       // variant "1" is SKUOptions[0]
	Attributes       []Attribute // ordered by key
	Service          Services
}

// Attribute returns the values of attribute key.
func (p *Product) Attribute(key string) ([]string, bool) {
	for _, a := range p.Attributes {
		if a.Key == key {
			return a.Values, true
		}
	}
	return nil, false
}

// TopCategory is the first level of the category path.
func (p *Product) TopCategory() string {
	top, _, _ := strings.Cut(p.Category, ">")
	return strings.TrimSpace(top)
}

// Validate checks the fields ShoppingBench requires (product_id, title,
// price) and that the numbers are usable.
func (p *Product) Validate() error {
	var errs []error
	if strings.TrimSpace(p.ProductID) == "" {
		errs = append(errs, errors.New("missing product_id"))
	}
	if strings.TrimSpace(p.Title) == "" {
		errs = append(errs, errors.New("missing title"))
	}
	if math.IsNaN(p.Price) || math.IsInf(p.Price, 0) || p.Price < 0 {
		errs = append(errs, fmt.Errorf("price %v is not a non-negative number", p.Price))
	}
	if p.SoldCount < 0 {
		errs = append(errs, fmt.Errorf("sold_count %d is negative", p.SoldCount))
	}
	if p.Service&^allServices != 0 {
		errs = append(errs, fmt.Errorf("unknown service bits %#x", uint8(p.Service&^allServices)))
	}
	return errors.Join(errs...)
}

// compareIDs orders product ids: numeric ids (ShoppingBench's are all
// digits) by value, then anything else by bytes after them. It is the order
// of a Catalog and the tie-break of every search.
func compareIDs(a, b string) int {
	an, bn := isDigits(a), isDigits(b)
	switch {
	case an && bn:
		ta, tb := strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(ta) != len(tb) {
			if len(ta) < len(tb) {
				return -1
			}
			return 1
		}
		if c := strings.Compare(ta, tb); c != 0 {
			return c
		}
		// Same value, different spelling ("07" and "7"): still distinct ids.
	case an:
		return -1
	case bn:
		return 1
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
