-- The users' key in the order of their UTF-8 bytes, for a search of userIds by prefix (the
-- statement usersSearch): in the database's collation (en_US and the like) the userIds that start
-- with a prefix need not be one range of the primary key, in "C" they are. The primary key keeps
-- the collation users/list pages by.
CREATE INDEX "User_tenant_userId_c_idx" ON "User" ("tenant", "userId" COLLATE "C");
