package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/damone-rules/damone/internal/games"
	"github.com/damone-rules/damone/internal/store/postgres/pgtest"
	"github.com/damone-rules/damone/internal/store/storetest"
)

// BenchmarkList is a ListGames page (storetest.BenchList) at 100 and
// 100,000 stored games. The games are loaded with COPY, rows as Create
// writes them, since creating 100,000 one by one takes minutes.
func BenchmarkList(b *testing.B) {
	storetest.BenchList(b, func(b *testing.B) games.Store { return open(b, pgtest.FreshDSN(b)) }, func(b *testing.B, st games.Store, held int) {
		s := st.(*Store)
		ctx := context.Background()
		var gameRows, eventRows [][]any
		for i := range held {
			g, evs := storetest.ListGame(b, held, i)
			data, err := games.EncodeGame(g)
			if err != nil {
				b.Fatal(err)
			}
			gameRows = append(gameRows, []any{g.ID, g.Version, g.LastEvent, g.Over(), string(data), g.CreateTime, g.UpdateTime})
			for j := range evs {
				e, err := games.EncodeEvent(&evs[j])
				if err != nil {
					b.Fatal(err)
				}
				eventRows = append(eventRows, []any{g.ID, evs[j].Sequence, string(e)})
			}
		}
		if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"games"}, []string{"id", "version", "last_event", "finished", "record", "created_at", "updated_at"}, pgx.CopyFromRows(gameRows)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{"game_events"}, []string{"game_id", "seq", "record"}, pgx.CopyFromRows(eventRows)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.pool.Exec(ctx, "ANALYZE games; ANALYZE game_events"); err != nil {
			b.Fatal(err)
		}
	})
}
