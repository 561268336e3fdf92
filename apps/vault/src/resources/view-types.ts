/**
 * PAM360's VIEWTYPE values this server can honour; RECENTLYACCESSEDPASSWORD it cannot (no
 * per-user history kept for it). Its own file: the DTO validates with it, the search reads it.
 */
export const VIEW_TYPES = ['ALLMYPASSWORD', 'FAVOURITEPASSWORD', 'LINUXSSHPASSWORD', 'WINDOWSRDPPASSWORD', 'RECENTLYACCESSEDPASSWORD'] as const;
