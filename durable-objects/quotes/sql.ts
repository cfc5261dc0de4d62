/** The part of SqlStorage a hub's tables use (its ticks, candles, memory, epochs and exposure log). */
export type Sql = Pick<SqlStorage, "exec">;
