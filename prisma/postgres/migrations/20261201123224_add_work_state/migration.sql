-- CreateTable
CREATE TABLE "work_states" (
    "sessionId" TEXT NOT NULL,
    "planRevision" INTEGER,
    "planJson" TEXT,
    "todoRevision" INTEGER NOT NULL,
    "todoJson" TEXT,
    "updatedAtMs" BIGINT NOT NULL,

    CONSTRAINT "work_states_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "work_updates" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "resultJson" TEXT NOT NULL,
    "atMs" BIGINT NOT NULL,

    CONSTRAINT "work_updates_pkey" PRIMARY KEY ("sessionId","id")
);

