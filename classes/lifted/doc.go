// Package lifted registers the lifted FIR classes of gputrain with package
// classes, all trained by trainer.Train and written in the gputrain-nfir
// format: fir (a passive linear FIR whose length is chosen on validation
// data), nfir-ff and nfir-fb (the paper's passive NFIR without and with
// output feedback, default settings) and nfir (the model gputrain
// recommends; today the default train path, nfir-fb).
package lifted
