//go:build !linux && !darwin && !windows

package focus

import (
	"context"
	"fmt"
	"runtime"
)

func platformFocus(ctx context.Context, t Target, s system) error {
	return fmt.Errorf("%w on %s", ErrUnsupported, runtime.GOOS)
}
