package data_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/passivenfir/gputrain/data"
)

func ExampleReadCSV_dialects() {
	// A spreadsheet export: byte order mark, quoted names, semicolons, CRLF line ends.
	text := "\ufeff\"time, s\";\"u\";\"y\"\r\n0;1.5;0\r\n0.01;-0.5;0.25\r\n"
	d, err := data.ReadCSV(strings.NewReader(text), "export.csv", data.ReadOptions{IgnoreExtra: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Batches[0].U, d.Batches[0].Y)

	// Decimal commas are refused with the fix.
	_, err = data.ReadCSV(strings.NewReader("u;y\n1,5;0\n"), "comma.csv", data.ReadOptions{})
	fmt.Println(err)
	// Output:
	// [1.5 -0.5] [0 0.25]
	// data: comma.csv line 2 column "u": "1,5" is not a number; decimal commas are not read, write 1.5; fix or remove the row: not a number
}

func ExampleReadCSV_timeColumn() {
	// A logger's file: a time column in seconds gives the sampling time.
	text := "Time [s],u,y\n0.000,1.5,0\n0.005,-0.5,0.25\n0.010,0.5,-0.1\n"
	d, err := data.ReadCSV(strings.NewReader(text), "log.csv", data.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Ts, d.Batches[0].U)

	// A row missing is refused on its line: the models take one row per sample.
	gap := "time,u,y\n0.000,1,0\n0.005,1,0\n0.010,1,0\n0.020,1,0\n0.025,1,0\n"
	_, err = data.ReadCSV(strings.NewReader(gap), "gap.csv", data.ReadOptions{})
	fmt.Println(err)
	// Output:
	// 0.005 [1.5 -0.5 0.5]
	// data: gap.csv line 5 column "time": the time steps from 0.01 to 0.02, by 0.01 where the batch steps by 0.005: a gap: rows missing; the models assume one row per sampling time, so fill in the missing rows (interpolate), or split the record there into batches (a batch column): time column not uniform
}
