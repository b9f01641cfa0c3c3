package focus

import "context"

func platformFocus(ctx context.Context, t Target, s system) error {
	return focusX11(ctx, t, s)
}
