-- Reads the generation of channel @p1: one clustered-index seek.
SELECT generation FROM queuebox_wake WHERE channel = @p1;
