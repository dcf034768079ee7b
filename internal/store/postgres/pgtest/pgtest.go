// Package pgtest gives tests an empty schema of the test PostgreSQL
// (scripts/test-postgres, DAMONE_TEST_POSTGRES_DSN), for every package
// whose tests need one: the store's, the server's end to end, the
// benchmarks'.
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DSN returns the test server's DSN. CI must provide one (a fatal error
// with CI=true); elsewhere the test skips without it.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("DAMONE_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but DAMONE_TEST_POSTGRES_DSN is unset: .ci/run must start PostgreSQL (make test does: scripts/test-postgres)")
		}
		t.Skip("DAMONE_TEST_POSTGRES_DSN unset; start a server with: eval \"$(scripts/test-postgres start)\"")
	}
	return dsn
}

// FreshDSN creates an empty schema, dropped when the test ends, and
// returns a DSN whose search_path is it, so the test starts from an empty
// database.
func FreshDSN(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("t_%d_%d", time.Now().UnixNano(), rand.IntN(1e6))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), dsn); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}
