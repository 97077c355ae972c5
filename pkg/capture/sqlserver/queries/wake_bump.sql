-- Bumps the generation of channel @p1, creating the row on first use.
UPDATE queuebox_wake SET generation = generation + 1 WHERE channel = @p1;
IF @@ROWCOUNT = 0
    INSERT INTO queuebox_wake (channel, generation) VALUES (@p1, 1);
