package validation

// For the batteries of package validation_test (codes_battery_test.go,
// the fuzz target): the code checks of codes_test.go.
var (
	Coded         = coded
	CodedWarnings = codedWarnings
)
