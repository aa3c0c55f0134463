-- Places by their names in other languages (issue 25): "Munich", "Monachium" and "מינכן" find München.
-- Seed data like the places (seed/place-names.ts, from GeoNames' alternate names): one row per place
-- and language whose name differs from the place's own. The place search reads them once per database
-- with the places and matches in memory (modules/geo/service.ts), so no index serves the matching;
-- the key is the one a place's names are read and written by.
CREATE TABLE place_names (
  level smallint NOT NULL CHECK (level BETWEEN 1 AND 3),
  -- level1_locations, level2_locations or level3_locations by `level`
  place_id integer NOT NULL,
  lng varchar(5) NOT NULL,
  name text NOT NULL,
  PRIMARY KEY (level, place_id, lng)
);
