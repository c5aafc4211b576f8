-- CreateTable
CREATE TABLE "goals" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "workflowId" TEXT NOT NULL,
    "objective" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "revision" INTEGER NOT NULL,
    "snapshot" TEXT NOT NULL,
    "createdAtMs" BIGINT NOT NULL,
    "updatedAtMs" BIGINT NOT NULL
);

-- CreateIndex
CREATE INDEX "goals_sessionId_idx" ON "goals"("sessionId");

-- CreateIndex
CREATE INDEX "goals_status_updatedAtMs_idx" ON "goals"("status", "updatedAtMs");

-- CreateIndex
CREATE INDEX "goals_updatedAtMs_idx" ON "goals"("updatedAtMs");

