package io.kvlog.spark.log;

/**
 * A read pinned to an older run of a {@code kvlog backup} ({@code kvlog.backupRun}) that cannot be served in
 * place: the run does not exist (or its committed-offsets file is damaged), or a later run moved aside files of a
 * partition that run holds. The message names the backup, the run and, for the latter, the partition and the later
 * run. As {@code kvlog.errors.BackupError} in Python; a restore of the run still gets it back.
 */
public final class BackupRunException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public BackupRunException(String message) {
        super(message);
    }
}
