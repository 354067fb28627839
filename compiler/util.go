package compiler

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// NilValue is cty.NilVal: a value not yet computed.
var NilValue = cty.NilVal
