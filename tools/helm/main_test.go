package helmchart_test

import (
	"io"
	"log"
	"os"
	"testing"
)

// Helm's loader logs every linked file it follows (charts/damone/files
// links to k8s/); the tests load the chart many times.
func TestMain(m *testing.M) {
	log.SetOutput(io.Discard)
	os.Exit(m.Run())
}
