-- +goose Up
-- The number of games, kept by a trigger, so counting them (the games
-- limit, checked at every CreateGame, and the games gauge) reads one row
-- instead of scanning every game.
CREATE TABLE game_count (
    one  boolean PRIMARY KEY DEFAULT true CHECK (one),
    n    bigint  NOT NULL
);
INSERT INTO game_count (n) SELECT count(*) FROM games;

-- +goose StatementBegin
CREATE FUNCTION count_games() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE game_count SET n = n + 1;
    ELSE
        UPDATE game_count SET n = n - 1;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER games_counted AFTER INSERT OR DELETE ON games
    FOR EACH ROW EXECUTE FUNCTION count_games();

-- +goose Down
DROP TRIGGER games_counted ON games;
DROP FUNCTION count_games();
DROP TABLE game_count;
