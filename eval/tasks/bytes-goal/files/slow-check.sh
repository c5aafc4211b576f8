# The Goal's check (eval task bytes-goal): slow on purpose, like a real CI step.
sleep 6
node --test test/
