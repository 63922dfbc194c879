// Package all registers every model class of gputrain with package classes,
// in the order compare lists them; import it for its side effect. Adding a
// class is one package implementing classes.Class and one line here.
package all

import (
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/classes/lifted"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/model"
)

func init() {
	classes.Register(lifted.FIR)
	classes.Register(lifted.NFIRFF)
	classes.Register(lifted.NFIRFB)
	classes.Register(lifted.Selected)
	classes.Register(loopclass.Class)
	classes.Register(baseline.MLP)
	classes.Register(baseline.GRU)
	classes.Register(baseline.N4SID)
	classes.Register(baseline.REN)

	classes.RegisterComposite(meanclass.Name, meanclass.Decode)
	classes.RegisterFormat(model.Format, lifted.DecodeFile)
}
