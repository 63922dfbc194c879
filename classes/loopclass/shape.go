package loopclass

import (
	"fmt"
	"reflect"

	"github.com/passivenfir/gputrain/loop"
)

// Shape is the --loop-shape of class loop: every shape of loop.Shapes,
// each from two seeds with the best or their mean kept (AllShapes, the
// default), or one shape trained once from --seed, as the structure
// search's loop trials train.
type Shape int

const (
	AllShapes   Shape = iota
	Sized             // loop.Sized
	Wide              // loop.Wide
	SizedStates       // loop.WithStates(loop.Sized)
	WideStates        // loop.WithStates(loop.Wide)
	SizedRec          // loop.WithRec(loop.Sized)
	WideRec           // loop.WithRec(loop.Wide)
)

var shapeNames = [...]string{AllShapes: "all", Sized: "sized", Wide: "wide", SizedStates: "sized-states", WideStates: "wide-states",
	SizedRec: "sized-rec", WideRec: "wide-rec"}

func (s Shape) String() string {
	if s < 0 || int(s) >= len(shapeNames) {
		return fmt.Sprintf("Shape(%d)", int(s))
	}
	return shapeNames[s]
}

// Set implements flag.Value.
func (s *Shape) Set(v string) error {
	for i, n := range shapeNames {
		if v == n {
			*s = Shape(i)
			return nil
		}
	}
	return fmt.Errorf("%q: want all, sized, wide, sized-states, wide-states, sized-rec or wide-rec", v)
}

// Structure is the shape's loop for a memory of L taps (AllShapes has
// none: the zero Structure).
func (s Shape) Structure(L int) loop.Structure {
	switch s {
	case Sized:
		return loop.Sized(L)
	case Wide:
		return loop.Wide(L)
	case SizedStates:
		return loop.WithStates(loop.Sized(L))
	case WideStates:
		return loop.WithStates(loop.Wide(L))
	case SizedRec:
		return loop.WithRec(loop.Sized(L))
	case WideRec:
		return loop.WithRec(loop.Wide(L))
	}
	return loop.Structure{}
}

// ShapeOf names st, a loop for a memory of L taps: one of the shapes of
// loop.Shapes, or false when it is none.
func ShapeOf(st loop.Structure, L int) (Shape, bool) {
	for _, s := range []Shape{Sized, Wide, SizedStates, WideStates, SizedRec, WideRec} {
		if reflect.DeepEqual(st, s.Structure(L)) {
			return s, true
		}
	}
	return AllShapes, false
}
