-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "agent" TEXT,
ADD COLUMN     "depth" INTEGER,
ADD COLUMN     "parentSessionId" TEXT,
ADD COLUMN     "rootSessionId" TEXT;

-- CreateTable
CREATE TABLE "delegations" (
    "parentSessionId" TEXT NOT NULL,
    "rowId" TEXT NOT NULL,
    "callId" TEXT NOT NULL,
    "jobId" TEXT,
    "childSessionId" TEXT NOT NULL,
    "rootSessionId" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "depth" INTEGER NOT NULL,
    "mode" TEXT NOT NULL,
    "objective" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "errorCode" TEXT,
    "error" TEXT,
    "report" TEXT,
    "metadata" TEXT,
    "startedAtMs" BIGINT NOT NULL,
    "settledAtMs" BIGINT,

    CONSTRAINT "delegations_pkey" PRIMARY KEY ("parentSessionId","rowId")
);

-- CreateTable
CREATE TABLE "councils" (
    "id" TEXT NOT NULL,
    "workflowId" TEXT NOT NULL,
    "workspace" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "preset" TEXT NOT NULL,
    "diffRange" TEXT,
    "status" TEXT NOT NULL,
    "errorCode" TEXT,
    "seats" TEXT NOT NULL,
    "synthesis" TEXT,
    "parentSessionId" TEXT,
    "startedAtMs" BIGINT NOT NULL,
    "seatDeadlineMs" BIGINT NOT NULL,
    "deadlineMs" BIGINT NOT NULL,
    "updatedAtMs" BIGINT NOT NULL,

    CONSTRAINT "councils_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "delegations_parentSessionId_jobId_idx" ON "delegations"("parentSessionId", "jobId");

-- CreateIndex
CREATE UNIQUE INDEX "delegations_childSessionId_key" ON "delegations"("childSessionId");

-- CreateIndex
CREATE INDEX "councils_updatedAtMs_idx" ON "councils"("updatedAtMs");

-- CreateIndex
CREATE INDEX "sessions_parentSessionId_idx" ON "sessions"("parentSessionId");

