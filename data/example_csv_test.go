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
