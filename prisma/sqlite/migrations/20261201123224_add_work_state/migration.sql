-- CreateTable
CREATE TABLE "work_states" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "planRevision" INTEGER,
    "planJson" TEXT,
    "todoRevision" INTEGER NOT NULL,
    "todoJson" TEXT,
    "updatedAtMs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "work_updates" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "resultJson" TEXT NOT NULL,
    "atMs" BIGINT NOT NULL,

    PRIMARY KEY ("sessionId", "id")
);

