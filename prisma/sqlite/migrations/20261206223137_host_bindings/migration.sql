-- CreateTable
CREATE TABLE "HostBinding" (
    "host" TEXT NOT NULL PRIMARY KEY,
    "machine" TEXT NOT NULL,
    "machineName" TEXT NOT NULL,
    "home" TEXT NOT NULL,
    "boundAtMs" BIGINT NOT NULL,
    "lastSeenAtMs" BIGINT NOT NULL,
    "takenOverFrom" TEXT,
    "takenOverAtMs" BIGINT
);

