package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

// ErrUnsupported reports a file this package does not export: another
// model format, or a structure a target cannot represent.
var ErrUnsupported = errors.New("export: unsupported")

// ErrName reports a --name that is not a usable C identifier.
var ErrName = errors.New("export: bad name")

// Claim is what an exported model may say about its passivity.
type Claim int

const (
	// Certified: the file claims passivity and every FIR passes the
	// certificate, recomputed from the taps at export.
	Certified Claim = iota
	// Unclaimed: the model was trained with --passivity none and claims
	// nothing (its taps may or may not pass).
	Unclaimed
	// Uncertified: the file claims passivity but its taps fail the
	// certificate; exported only on request (--allow-uncertified).
	Uncertified
)

// Source is a model file read for export: the operator, what the file says
// beside it, the certificate recomputed from its taps, and the file's
// fingerprint, which every artifact carries so that it can be traced back.
type Source struct {
	Model    *model.NFIR            // the NFIR; nil for a loop
	Loop     loop.Mean              // the loop, or the mean of several (a gputrain-model file of class loop); nil for an NFIR
	REN      *baselines.PassiveREN  // a passive REN (a gputrain-model file of class ren); nil otherwise
	RENMat   *baselines.RENMatrices // its explicit model and certificate, recomputed at export
	Meta     model.Meta             // a loop's Mode is LoopMode
	Cert     model.Certificate      // an NFIR's certificate
	LoopCert []FIRCert              // a loop's: every FIR of H1 and its sections, then every FIR of H2
	Mean     *meanclass.Model       // a weighted mean of passive models (class mean); nil otherwise
	Members  []*Source              // a mean's members, each as a file of its class would load
	Claim    Claim
	File     string // base name of the model file
	SHA256   string // of the file's bytes, lower-case hex
}

// Passive reports whether the artifacts may call the model passive.
func (s *Source) Passive() bool { return s.Claim == Certified }

// Marker is the line every artifact of a model that is not certified
// passive carries, loudly; "" for a certified one.
func (s *Source) Marker() string {
	switch s.Claim {
	case Unclaimed:
		return "NOT PASSIVE: this model was trained with --passivity none and claims no passivity"
	case Uncertified:
		return "NOT PASSIVE: the model file claims passivity (mode " + s.Meta.Mode + ") but its taps FAIL the certificate; exported with --allow-uncertified"
	}
	return ""
}

// Load reads a model file for export: a gputrain-nfir file (an NFIR), or
// a gputrain-model file of class loop (the loop package's operator, whose
// every FIR is certified here; any other class is ErrUnsupported). Like model.Load it
// validates everything and re-certifies a passivity claim from the taps; a
// claim the taps fail is an error (model.ErrNotPassive) unless
// allowUncertified, when the model is exported marked NOT PASSIVE.
func Load(path string, allowUncertified bool) (*Source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var head struct {
		Format *string `json:"format"`
		Class  string  `json:"class"` // of a gputrain-model file
	}
	sum := sha256.Sum256(b)
	src := &Source{File: filepath.Base(path), SHA256: hex.EncodeToString(sum[:])}
	if json.Unmarshal(bytes.TrimPrefix(b, []byte("\ufeff")), &head) == nil && head.Format != nil {
		switch *head.Format {
		case model.Format:
		case classes.Format:
			switch head.Class {
			case loopclass.Class.Name():
				return loadLoop(path, b, allowUncertified, src)
			case baseline.REN.Name():
				return loadREN(path, b, allowUncertified, src)
			case meanclass.Name:
				return loadMean(path, b, allowUncertified, src)
			}
			return nil, fmt.Errorf("%w: %s is a %q file of class %q; export reads %q model files (the NFIR operator) and %q files of class loop or ren: this class has no exported form",
				ErrUnsupported, path, classes.Format, head.Class, model.Format, classes.Format)
		default:
			return nil, fmt.Errorf("%w: %s is a %q file; export reads %q model files (the NFIR operator) and %q files of class loop or ren", ErrUnsupported, path, *head.Format, model.Format, classes.Format)
		}
	}
	src.Model, src.Meta, err = model.Decode(bytes.NewReader(b))
	switch {
	case errors.Is(err, model.ErrNotPassive) && allowUncertified:
		// Read the same bytes again without the claim's check.
		if src.Model, src.Meta, err = model.Inspect(path); err != nil {
			return nil, err
		}
		if again, rerr := os.ReadFile(path); rerr != nil || !bytes.Equal(again, b) {
			return nil, fmt.Errorf("export: %s changed while it was read", path)
		}
		src.Claim = Uncertified
	case err != nil:
		if errors.Is(err, model.ErrNotPassive) {
			err = fmt.Errorf("%w (export it anyway, marked NOT PASSIVE, with --allow-uncertified)", err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	case src.Meta.Mode == "none":
		src.Claim = Unclaimed
	}
	if src.Cert, err = src.Model.Certify(); err != nil {
		return nil, err
	}
	return src, nil
}

// CertMethod names how the certificate in every artifact was computed.
const CertMethod = "convex.Certify: rigorous lower bound of min over w in [0, pi] of Re G(e^{iw}) = sum_k g(k) cos(k w), " +
	"by Taylor bounds on a grid and branch and bound, rounding errors included; recomputed from the taps at export"

// Version is the tool version written into every artifact. The command
// sets it from its own version string (gputrain's main.version, set with
// -ldflags "-X main.version=…"); when that is empty, BuildVersion is used.
var Version = ""

// BuildVersion returns the version of the running binary from the build
// information Go embeds: the module version when built with go install
// module@version, and otherwise the VCS revision (12 hex digits, "+dirty"
// when the tree had changes), or "devel" when neither is known (go test,
// go run outside a repository).
func BuildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + dirty
}

func toolVersion() string {
	if Version != "" {
		return Version
	}
	return BuildVersion()
}

// cKeywords are the C99 keywords (and the names the generated code uses
// for itself) that cannot be a --name.
var cKeywords = strings.Fields(`auto break case char const continue default do double else enum extern float
	for goto if inline int long register restrict return short signed sizeof static struct switch typedef union
	unsigned void volatile while _Bool _Complex _Imaginary main`)

// CheckName reports whether name can prefix the generated C names: a C
// identifier of at most 40 characters, not a keyword, not reserved to the
// C implementation (a leading underscore) and not fmi2… (the FMI
// functions).
func CheckName(name string) error {
	if name == "" || len(name) > 40 {
		return fmt.Errorf("%w: %q: give 1 to 40 characters", ErrName, name)
	}
	for i, c := range name {
		ok := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9')
		if !ok {
			return fmt.Errorf("%w: %q is not a C identifier (letters, digits and _, not starting with a digit)", ErrName, name)
		}
	}
	switch {
	case name[0] == '_':
		return fmt.Errorf("%w: %q: names starting with _ are reserved to the C implementation", ErrName, name)
	case strings.HasPrefix(strings.ToLower(name), "fmi"):
		return fmt.Errorf("%w: %q: names starting with fmi clash with the FMI functions", ErrName, name)
	}
	for _, k := range cKeywords {
		if name == k {
			return fmt.Errorf("%w: %q is a C keyword", ErrName, name)
		}
	}
	return nil
}
