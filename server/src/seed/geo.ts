import type { Db } from '../db/db.ts'

/** [name, latitude, longitude] of a level-3 place (city, town or district). */
type City = readonly [string, number, number]
/** [name, code, cities] of a level-2 area (county, département, Landkreis, province, district…). */
type County = readonly [string, string, readonly City[]]
/** [name, code (ISO 3166-2; ONS region code for English regions), counties] of a level-1 area. */
type State = readonly [string, string, readonly County[]]

export interface CountrySeed {
  code: string
  name: string
  /** Main language (one of the 27 UI codes), used for localized category names. */
  language: string
  /** Relative share of the seeded companies. */
  weight: number
  states: readonly State[]
}

/**
 * A realistic subset of each country's real administrative areas with approximate city
 * coordinates. Some names repeat inside one country on purpose (Springfield, Pasadena, Frankfurt,
 * Newport, Bangor, Hengelo, Nai Mueang), so the place search has to tell them apart by parent.
 */
export const COUNTRIES: readonly CountrySeed[] = [
  {
    code: 'US',
    name: 'United States',
    language: 'en',
    weight: 26,
    states: [
      [
        'California',
        'US-CA',
        [
          [
            'Los Angeles County',
            '06037',
            [
              ['Los Angeles', 34.052, -118.244],
              ['Long Beach', 33.77, -118.194],
              ['Pasadena', 34.148, -118.145],
              ['Santa Monica', 34.019, -118.491],
            ],
          ],
          ['San Francisco County', '06075', [['San Francisco', 37.775, -122.419]]],
          [
            'San Diego County',
            '06073',
            [
              ['San Diego', 32.716, -117.161],
              ['Chula Vista', 32.64, -117.084],
              ['Oceanside', 33.196, -117.38],
            ],
          ],
          [
            'Santa Clara County',
            '06085',
            [
              ['San Jose', 37.339, -121.895],
              ['Palo Alto', 37.442, -122.143],
              ['Sunnyvale', 37.369, -122.036],
            ],
          ],
        ],
      ],
      [
        'New York',
        'US-NY',
        [
          ['New York County', '36061', [['New York', 40.713, -74.006]]],
          ['Kings County', '36047', [['Brooklyn', 40.678, -73.944]]],
          [
            'Erie County',
            '36029',
            [
              ['Buffalo', 42.886, -78.878],
              ['Tonawanda', 43.02, -78.88],
              ['Cheektowaga', 42.903, -78.755],
            ],
          ],
          [
            'Monroe County',
            '36055',
            [
              ['Rochester', 43.157, -77.616],
              ['Greece', 43.21, -77.693],
            ],
          ],
        ],
      ],
      [
        'Texas',
        'US-TX',
        [
          [
            'Harris County',
            '48201',
            [
              ['Houston', 29.76, -95.37],
              ['Pasadena', 29.691, -95.209],
              ['Baytown', 29.736, -94.977],
            ],
          ],
          [
            'Dallas County',
            '48113',
            [
              ['Dallas', 32.777, -96.797],
              ['Irving', 32.814, -96.949],
              ['Garland', 32.913, -96.639],
            ],
          ],
          [
            'Travis County',
            '48453',
            [
              ['Austin', 30.267, -97.743],
              ['Pflugerville', 30.439, -97.62],
            ],
          ],
          ['Lamar County', '48277', [['Paris', 33.661, -95.556]]],
        ],
      ],
      [
        'Illinois',
        'US-IL',
        [
          [
            'Cook County',
            '17031',
            [
              ['Chicago', 41.878, -87.63],
              ['Evanston', 42.045, -87.688],
              ['Oak Park', 41.885, -87.785],
            ],
          ],
          [
            'Sangamon County',
            '17167',
            [
              ['Springfield', 39.781, -89.65],
              ['Chatham', 39.676, -89.704],
            ],
          ],
          [
            'Champaign County',
            '17019',
            [
              ['Champaign', 40.116, -88.243],
              ['Urbana', 40.111, -88.207],
            ],
          ],
        ],
      ],
      [
        'Massachusetts',
        'US-MA',
        [
          [
            'Suffolk County',
            '25025',
            [
              ['Boston', 42.36, -71.059],
              ['Revere', 42.408, -71.012],
            ],
          ],
          [
            'Hampden County',
            '25013',
            [
              ['Springfield', 42.101, -72.59],
              ['Chicopee', 42.149, -72.608],
              ['Holyoke', 42.204, -72.616],
            ],
          ],
          [
            'Middlesex County',
            '25017',
            [
              ['Cambridge', 42.373, -71.119],
              ['Lowell', 42.633, -71.316],
              ['Somerville', 42.388, -71.1],
            ],
          ],
        ],
      ],
      [
        'Missouri',
        'US-MO',
        [
          [
            'Greene County',
            '29077',
            [
              ['Springfield', 37.209, -93.292],
              ['Republic', 37.12, -93.48],
            ],
          ],
          [
            'Jackson County',
            '29095',
            [
              ['Kansas City', 39.1, -94.579],
              ['Independence', 39.091, -94.415],
            ],
          ],
          [
            'St. Louis County',
            '29189',
            [
              ['Florissant', 38.789, -90.322],
              ['Chesterfield', 38.663, -90.577],
            ],
          ],
        ],
      ],
      [
        'Florida',
        'US-FL',
        [
          [
            'Miami-Dade County',
            '12086',
            [
              ['Miami', 25.762, -80.192],
              ['Hialeah', 25.858, -80.278],
              ['Miami Beach', 25.791, -80.13],
            ],
          ],
          [
            'Orange County',
            '12095',
            [
              ['Orlando', 28.538, -81.379],
              ['Winter Park', 28.6, -81.339],
            ],
          ],
          [
            'Hillsborough County',
            '12057',
            [
              ['Tampa', 27.951, -82.457],
              ['Plant City', 28.019, -82.113],
            ],
          ],
        ],
      ],
      [
        'Washington',
        'US-WA',
        [
          [
            'King County',
            '53033',
            [
              ['Seattle', 47.606, -122.332],
              ['Bellevue', 47.61, -122.201],
              ['Redmond', 47.674, -122.121],
            ],
          ],
          [
            'Pierce County',
            '53053',
            [
              ['Tacoma', 47.253, -122.444],
              ['Lakewood', 47.172, -122.518],
            ],
          ],
        ],
      ],
      [
        'Oregon',
        'US-OR',
        [
          [
            'Multnomah County',
            '41051',
            [
              ['Portland', 45.515, -122.679],
              ['Gresham', 45.498, -122.431],
            ],
          ],
          [
            'Lane County',
            '41039',
            [
              ['Eugene', 44.052, -123.087],
              ['Springfield', 44.046, -123.022],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'GB',
    name: 'United Kingdom',
    language: 'en',
    weight: 14,
    states: [
      [
        'Greater London',
        'GB-LND',
        [
          [
            'City of Westminster',
            'E09000033',
            [
              ['Westminster', 51.497, -0.136],
              ['Marylebone', 51.522, -0.155],
              ['Soho', 51.513, -0.136],
            ],
          ],
          [
            'Camden',
            'E09000007',
            [
              ['Camden Town', 51.539, -0.142],
              ['Hampstead', 51.556, -0.178],
            ],
          ],
          [
            'Hackney',
            'E09000012',
            [
              ['Hackney', 51.545, -0.055],
              ['Shoreditch', 51.526, -0.078],
            ],
          ],
          [
            'Croydon',
            'E09000008',
            [
              ['Croydon', 51.376, -0.098],
              ['Purley', 51.337, -0.114],
            ],
          ],
        ],
      ],
      [
        'North West England',
        'E12000002',
        [
          [
            'Greater Manchester',
            'E11000001',
            [
              ['Manchester', 53.481, -2.243],
              ['Salford', 53.488, -2.29],
              ['Bolton', 53.578, -2.43],
              ['Stockport', 53.411, -2.157],
            ],
          ],
          [
            'Merseyside',
            'E11000002',
            [
              ['Liverpool', 53.408, -2.992],
              ['Birkenhead', 53.393, -3.014],
              ['St Helens', 53.454, -2.737],
            ],
          ],
          [
            'Lancashire',
            'E10000017',
            [
              ['Preston', 53.763, -2.703],
              ['Blackpool', 53.817, -3.036],
              ['Lancaster', 54.047, -2.801],
            ],
          ],
        ],
      ],
      [
        'West Midlands',
        'E12000005',
        [
          [
            'West Midlands County',
            'E11000005',
            [
              ['Birmingham', 52.486, -1.89],
              ['Coventry', 52.406, -1.512],
              ['Wolverhampton', 52.587, -2.129],
            ],
          ],
          [
            'Warwickshire',
            'E10000031',
            [
              ['Warwick', 52.282, -1.585],
              ['Stratford-upon-Avon', 52.192, -1.707],
              ['Rugby', 52.37, -1.265],
            ],
          ],
          [
            'Staffordshire',
            'E10000028',
            [
              ['Stafford', 52.806, -2.12],
              ['Lichfield', 52.683, -1.826],
              ['Tamworth', 52.633, -1.691],
            ],
          ],
        ],
      ],
      [
        'Yorkshire and the Humber',
        'E12000003',
        [
          [
            'West Yorkshire',
            'E11000006',
            [
              ['Leeds', 53.801, -1.549],
              ['Bradford', 53.795, -1.759],
              ['Wakefield', 53.683, -1.499],
              ['Huddersfield', 53.646, -1.782],
            ],
          ],
          [
            'South Yorkshire',
            'E11000003',
            [
              ['Sheffield', 53.381, -1.47],
              ['Doncaster', 53.523, -1.133],
              ['Rotherham', 53.43, -1.357],
            ],
          ],
          [
            'North Yorkshire',
            'E10000023',
            [
              ['York', 53.96, -1.087],
              ['Harrogate', 53.992, -1.541],
              ['Scarborough', 54.283, -0.4],
            ],
          ],
        ],
      ],
      [
        'South East England',
        'E12000008',
        [
          [
            'Kent',
            'E10000016',
            [
              ['Canterbury', 51.28, 1.079],
              ['Maidstone', 51.27, 0.522],
              ['Dover', 51.128, 1.313],
            ],
          ],
          [
            'Oxfordshire',
            'E10000025',
            [
              ['Oxford', 51.752, -1.258],
              ['Banbury', 52.063, -1.34],
              ['Abingdon-on-Thames', 51.671, -1.282],
            ],
          ],
          [
            'Hampshire',
            'E10000014',
            [
              ['Southampton', 50.91, -1.404],
              ['Portsmouth', 50.82, -1.088],
              ['Winchester', 51.06, -1.31],
            ],
          ],
          [
            'Isle of Wight',
            'E06000046',
            [
              ['Newport', 50.701, -1.29],
              ['Ryde', 50.73, -1.161],
              ['Cowes', 50.762, -1.298],
            ],
          ],
        ],
      ],
      [
        'Scotland',
        'GB-SCT',
        [
          [
            'City of Edinburgh',
            'S12000036',
            [
              ['Edinburgh', 55.953, -3.189],
              ['Leith', 55.975, -3.17],
            ],
          ],
          ['Glasgow City', 'S12000049', [['Glasgow', 55.864, -4.252]]],
          [
            'Aberdeen City',
            'S12000033',
            [
              ['Aberdeen', 57.149, -2.094],
              ['Dyce', 57.203, -2.17],
            ],
          ],
          [
            'Highland',
            'S12000017',
            [
              ['Inverness', 57.478, -4.225],
              ['Fort William', 56.82, -5.105],
              ['Aviemore', 57.195, -3.825],
            ],
          ],
        ],
      ],
      [
        'Wales',
        'GB-WLS',
        [
          [
            'Cardiff',
            'W06000015',
            [
              ['Cardiff', 51.481, -3.179],
              ['Penarth', 51.435, -3.174],
            ],
          ],
          [
            'Newport',
            'W06000022',
            [
              ['Newport', 51.588, -2.998],
              ['Caerleon', 51.61, -2.955],
            ],
          ],
          [
            'Swansea',
            'W06000011',
            [
              ['Swansea', 51.621, -3.944],
              ['Mumbles', 51.573, -3.999],
            ],
          ],
          [
            'Gwynedd',
            'W06000002',
            [
              ['Bangor', 53.228, -4.129],
              ['Caernarfon', 53.14, -4.27],
              ['Pwllheli', 52.888, -4.418],
            ],
          ],
        ],
      ],
      [
        'Northern Ireland',
        'GB-NIR',
        [
          ['Belfast', 'N09000003', [['Belfast', 54.597, -5.93]]],
          [
            'Ards and North Down',
            'N09000011',
            [
              ['Bangor', 54.66, -5.668],
              ['Newtownards', 54.592, -5.691],
              ['Holywood', 54.638, -5.826],
            ],
          ],
          [
            'Derry City and Strabane',
            'N09000005',
            [
              ['Derry', 54.997, -7.309],
              ['Strabane', 54.827, -7.463],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'DE',
    name: 'Germany',
    language: 'de',
    weight: 16,
    states: [
      [
        'Bayern',
        'DE-BY',
        [
          ['München', '09162', [['München', 48.137, 11.576]]],
          [
            'Landkreis München',
            '09184',
            [
              ['Garching bei München', 48.249, 11.651],
              ['Unterschleißheim', 48.281, 11.577],
              ['Ottobrunn', 48.064, 11.665],
            ],
          ],
          ['Nürnberg', '09564', [['Nürnberg', 49.452, 11.077]]],
          [
            'Landkreis Starnberg',
            '09188',
            [
              ['Starnberg', 47.999, 11.34],
              ['Gauting', 48.069, 11.377],
              ['Herrsching am Ammersee', 48.0, 11.172],
            ],
          ],
          ['Augsburg', '09761', [['Augsburg', 48.366, 10.898]]],
        ],
      ],
      [
        'Berlin',
        'DE-BE',
        [
          [
            'Berlin',
            '11000',
            [
              ['Mitte', 52.52, 13.37],
              ['Kreuzberg', 52.499, 13.403],
              ['Charlottenburg', 52.516, 13.304],
              ['Prenzlauer Berg', 52.539, 13.424],
              ['Neukölln', 52.481, 13.435],
            ],
          ],
        ],
      ],
      [
        'Hessen',
        'DE-HE',
        [
          ['Frankfurt am Main', '06412', [['Frankfurt am Main', 50.11, 8.682]]],
          ['Offenbach am Main', '06413', [['Offenbach am Main', 50.1, 8.766]]],
          [
            'Main-Taunus-Kreis',
            '06436',
            [
              ['Hofheim am Taunus', 50.09, 8.449],
              ['Bad Soden am Taunus', 50.143, 8.504],
              ['Eschborn', 50.143, 8.571],
            ],
          ],
          ['Darmstadt', '06411', [['Darmstadt', 49.872, 8.651]]],
          ['Wiesbaden', '06414', [['Wiesbaden', 50.078, 8.24]]],
        ],
      ],
      [
        'Brandenburg',
        'DE-BB',
        [
          ['Frankfurt (Oder)', '12053', [['Frankfurt (Oder)', 52.347, 14.55]]],
          ['Potsdam', '12054', [['Potsdam', 52.391, 13.064]]],
          [
            'Landkreis Oder-Spree',
            '12067',
            [
              ['Fürstenwalde/Spree', 52.361, 14.061],
              ['Eisenhüttenstadt', 52.145, 14.646],
              ['Beeskow', 52.172, 14.247],
            ],
          ],
        ],
      ],
      [
        'Nordrhein-Westfalen',
        'DE-NW',
        [
          ['Köln', '05315', [['Köln', 50.938, 6.96]]],
          ['Düsseldorf', '05111', [['Düsseldorf', 51.228, 6.774]]],
          ['Bonn', '05314', [['Bonn', 50.737, 7.098]]],
          [
            'Kreis Mettmann',
            '05158',
            [
              ['Ratingen', 51.297, 6.849],
              ['Mettmann', 51.25, 6.975],
              ['Velbert', 51.34, 7.043],
            ],
          ],
          ['Dortmund', '05913', [['Dortmund', 51.514, 7.468]]],
        ],
      ],
      [
        'Baden-Württemberg',
        'DE-BW',
        [
          ['Stuttgart', '08111', [['Stuttgart', 48.776, 9.183]]],
          [
            'Landkreis Esslingen',
            '08116',
            [
              ['Esslingen am Neckar', 48.74, 9.31],
              ['Nürtingen', 48.627, 9.335],
              ['Filderstadt', 48.666, 9.219],
            ],
          ],
          ['Heidelberg', '08221', [['Heidelberg', 49.399, 8.672]]],
          [
            'Rhein-Neckar-Kreis',
            '08226',
            [
              ['Weinheim', 49.549, 8.667],
              ['Sinsheim', 49.253, 8.879],
              ['Schwetzingen', 49.383, 8.572],
            ],
          ],
        ],
      ],
      [
        'Hamburg',
        'DE-HH',
        [
          [
            'Hamburg',
            '02000',
            [
              ['Hamburg-Mitte', 53.55, 10.0],
              ['Altona', 53.55, 9.935],
              ['Eimsbüttel', 53.574, 9.957],
              ['Wandsbek', 53.581, 10.083],
            ],
          ],
        ],
      ],
      [
        'Sachsen',
        'DE-SN',
        [
          ['Dresden', '14612', [['Dresden', 51.05, 13.738]]],
          ['Leipzig', '14713', [['Leipzig', 51.34, 12.375]]],
          [
            'Landkreis Leipzig',
            '14729',
            [
              ['Borna', 51.124, 12.497],
              ['Grimma', 51.236, 12.725],
              ['Markkleeberg', 51.278, 12.369],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'FR',
    name: 'France',
    language: 'fr',
    weight: 14,
    states: [
      [
        'Île-de-France',
        'FR-IDF',
        [
          ['Paris', '75', [['Paris', 48.857, 2.352]]],
          [
            'Hauts-de-Seine',
            '92',
            [
              ['Boulogne-Billancourt', 48.836, 2.24],
              ['Nanterre', 48.892, 2.207],
              ['Neuilly-sur-Seine', 48.885, 2.268],
            ],
          ],
          [
            'Seine-Saint-Denis',
            '93',
            [
              ['Saint-Denis', 48.936, 2.357],
              ['Montreuil', 48.861, 2.443],
              ['Aubervilliers', 48.914, 2.382],
            ],
          ],
          [
            'Val-de-Marne',
            '94',
            [
              ['Créteil', 48.79, 2.455],
              ['Vitry-sur-Seine', 48.787, 2.393],
              ['Vincennes', 48.847, 2.438],
            ],
          ],
        ],
      ],
      [
        'Auvergne-Rhône-Alpes',
        'FR-ARA',
        [
          [
            'Rhône',
            '69',
            [
              ['Lyon', 45.764, 4.836],
              ['Villeurbanne', 45.772, 4.89],
              ['Vénissieux', 45.697, 4.886],
            ],
          ],
          [
            'Isère',
            '38',
            [
              ['Grenoble', 45.188, 5.725],
              ['Vienne', 45.525, 4.874],
              ['Voiron', 45.364, 5.59],
            ],
          ],
          [
            'Puy-de-Dôme',
            '63',
            [
              ['Clermont-Ferrand', 45.778, 3.087],
              ['Riom', 45.894, 3.113],
            ],
          ],
        ],
      ],
      [
        "Provence-Alpes-Côte d'Azur",
        'FR-PAC',
        [
          [
            'Bouches-du-Rhône',
            '13',
            [
              ['Marseille', 43.296, 5.37],
              ['Aix-en-Provence', 43.53, 5.447],
              ['Arles', 43.677, 4.631],
            ],
          ],
          [
            'Alpes-Maritimes',
            '06',
            [
              ['Nice', 43.71, 7.262],
              ['Cannes', 43.552, 7.017],
              ['Antibes', 43.58, 7.125],
            ],
          ],
          [
            'Var',
            '83',
            [
              ['Toulon', 43.124, 5.928],
              ['Fréjus', 43.433, 6.737],
              ['Hyères', 43.12, 6.13],
            ],
          ],
        ],
      ],
      [
        'Occitanie',
        'FR-OCC',
        [
          [
            'Haute-Garonne',
            '31',
            [
              ['Toulouse', 43.605, 1.444],
              ['Colomiers', 43.611, 1.335],
              ['Blagnac', 43.636, 1.39],
            ],
          ],
          [
            'Hérault',
            '34',
            [
              ['Montpellier', 43.611, 3.877],
              ['Béziers', 43.344, 3.216],
              ['Sète', 43.403, 3.697],
            ],
          ],
        ],
      ],
      [
        'Nouvelle-Aquitaine',
        'FR-NAQ',
        [
          [
            'Gironde',
            '33',
            [
              ['Bordeaux', 44.838, -0.579],
              ['Mérignac', 44.842, -0.646],
              ['Pessac', 44.806, -0.631],
            ],
          ],
          [
            'Pyrénées-Atlantiques',
            '64',
            [
              ['Pau', 43.295, -0.371],
              ['Bayonne', 43.493, -1.475],
              ['Biarritz', 43.483, -1.559],
            ],
          ],
        ],
      ],
      [
        'Hauts-de-France',
        'FR-HDF',
        [
          [
            'Nord',
            '59',
            [
              ['Lille', 50.629, 3.057],
              ['Roubaix', 50.69, 3.181],
              ['Tourcoing', 50.724, 3.161],
              ['Dunkerque', 51.034, 2.377],
            ],
          ],
          [
            'Somme',
            '80',
            [
              ['Amiens', 49.894, 2.296],
              ['Abbeville', 50.106, 1.834],
            ],
          ],
        ],
      ],
      [
        'Bretagne',
        'FR-BRE',
        [
          [
            'Ille-et-Vilaine',
            '35',
            [
              ['Rennes', 48.117, -1.678],
              ['Saint-Malo', 48.649, -2.025],
            ],
          ],
          [
            'Finistère',
            '29',
            [
              ['Brest', 48.39, -4.486],
              ['Quimper', 47.996, -4.102],
            ],
          ],
        ],
      ],
      [
        'Grand Est',
        'FR-GES',
        [
          [
            'Bas-Rhin',
            '67',
            [
              ['Strasbourg', 48.573, 7.752],
              ['Haguenau', 48.816, 7.79],
            ],
          ],
          [
            'Marne',
            '51',
            [
              ['Reims', 49.258, 4.032],
              ['Châlons-en-Champagne', 48.957, 4.363],
              ['Épernay', 49.04, 3.959],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'ES',
    name: 'Spain',
    language: 'es',
    weight: 10,
    states: [
      [
        'Comunidad de Madrid',
        'ES-MD',
        [
          [
            'Madrid',
            'M',
            [
              ['Madrid', 40.417, -3.704],
              ['Alcalá de Henares', 40.482, -3.364],
              ['Móstoles', 40.322, -3.865],
              ['Getafe', 40.306, -3.733],
              ['Alcobendas', 40.537, -3.637],
            ],
          ],
        ],
      ],
      [
        'Cataluña',
        'ES-CT',
        [
          [
            'Barcelona',
            'B',
            [
              ['Barcelona', 41.385, 2.173],
              ["L'Hospitalet de Llobregat", 41.36, 2.1],
              ['Badalona', 41.45, 2.247],
              ['Sabadell', 41.548, 2.107],
              ['Terrassa', 41.563, 2.009],
            ],
          ],
          [
            'Girona',
            'GI',
            [
              ['Girona', 41.979, 2.821],
              ['Figueres', 42.267, 2.961],
              ['Blanes', 41.674, 2.79],
            ],
          ],
          [
            'Tarragona',
            'T',
            [
              ['Tarragona', 41.119, 1.245],
              ['Reus', 41.156, 1.107],
            ],
          ],
          ['Lleida', 'L', [['Lleida', 41.617, 0.62]]],
        ],
      ],
      [
        'Andalucía',
        'ES-AN',
        [
          [
            'Sevilla',
            'SE',
            [
              ['Sevilla', 37.389, -5.984],
              ['Dos Hermanas', 37.283, -5.921],
            ],
          ],
          [
            'Málaga',
            'MA',
            [
              ['Málaga', 36.721, -4.421],
              ['Marbella', 36.51, -4.883],
              ['Mijas', 36.596, -4.637],
            ],
          ],
          [
            'Granada',
            'GR',
            [
              ['Granada', 37.177, -3.599],
              ['Motril', 36.745, -3.518],
            ],
          ],
          [
            'Córdoba',
            'CO',
            [
              ['Córdoba', 37.888, -4.779],
              ['Lucena', 37.409, -4.485],
            ],
          ],
        ],
      ],
      [
        'Comunitat Valenciana',
        'ES-VC',
        [
          [
            'Valencia',
            'V',
            [
              ['Valencia', 39.47, -0.376],
              ['Gandía', 38.967, -0.181],
              ['Torrent', 39.437, -0.465],
            ],
          ],
          [
            'Alicante',
            'A',
            [
              ['Alicante', 38.345, -0.481],
              ['Elche', 38.267, -0.698],
              ['Benidorm', 38.541, -0.122],
            ],
          ],
        ],
      ],
      [
        'País Vasco',
        'ES-PV',
        [
          [
            'Bizkaia',
            'BI',
            [
              ['Bilbao', 43.263, -2.935],
              ['Getxo', 43.356, -3.011],
              ['Barakaldo', 43.297, -2.988],
            ],
          ],
          [
            'Gipuzkoa',
            'SS',
            [
              ['San Sebastián', 43.318, -1.981],
              ['Irun', 43.338, -1.789],
            ],
          ],
          ['Álava', 'VI', [['Vitoria-Gasteiz', 42.847, -2.672]]],
        ],
      ],
      [
        'Galicia',
        'ES-GA',
        [
          [
            'A Coruña',
            'C',
            [
              ['A Coruña', 43.362, -8.411],
              ['Santiago de Compostela', 42.878, -8.544],
              ['Ferrol', 43.484, -8.233],
            ],
          ],
          [
            'Pontevedra',
            'PO',
            [
              ['Vigo', 42.24, -8.72],
              ['Pontevedra', 42.431, -8.644],
            ],
          ],
        ],
      ],
      [
        'Castilla y León',
        'ES-CL',
        [
          [
            'Valladolid',
            'VA',
            [
              ['Valladolid', 41.652, -4.724],
              ['Medina del Campo', 41.312, -4.914],
            ],
          ],
          ['Salamanca', 'SA', [['Salamanca', 40.97, -5.664]]],
          [
            'León',
            'LE',
            [
              ['León', 42.599, -5.567],
              ['Ponferrada', 42.546, -6.598],
            ],
          ],
        ],
      ],
      [
        'Islas Baleares',
        'ES-IB',
        [
          [
            'Islas Baleares',
            'PM',
            [
              ['Palma', 39.57, 2.65],
              ['Ibiza', 38.909, 1.433],
              ['Manacor', 39.57, 3.209],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'IL',
    name: 'Israel',
    language: 'he',
    weight: 5,
    states: [
      [
        'Tel Aviv District',
        'IL-TA',
        [
          [
            'Tel Aviv Subdistrict',
            'IL-TA-51',
            [
              ['Tel Aviv-Yafo', 32.085, 34.782],
              ['Ramat Gan', 32.068, 34.824],
              ['Holon', 32.011, 34.774],
              ['Bat Yam', 32.017, 34.746],
              ['Herzliya', 32.166, 34.843],
              ['Bnei Brak', 32.081, 34.833],
              ['Givatayim', 32.072, 34.812],
            ],
          ],
        ],
      ],
      [
        'Jerusalem District',
        'IL-JM',
        [
          [
            'Jerusalem Subdistrict',
            'IL-JM-11',
            [
              ['Jerusalem', 31.769, 35.216],
              ['Beit Shemesh', 31.747, 34.988],
              ['Mevaseret Zion', 31.802, 35.151],
            ],
          ],
        ],
      ],
      [
        'Central District',
        'IL-M',
        [
          [
            'Petah Tikva Subdistrict',
            'IL-M-42',
            [
              ['Petah Tikva', 32.087, 34.887],
              ['Rosh HaAyin', 32.096, 34.957],
              ['Elad', 32.052, 34.951],
            ],
          ],
          [
            'Sharon Subdistrict',
            'IL-M-41',
            [
              ['Netanya', 32.321, 34.853],
              ['Kfar Saba', 32.178, 34.907],
              ["Ra'anana", 32.184, 34.871],
              ['Hod HaSharon', 32.15, 34.888],
            ],
          ],
          [
            'Rehovot Subdistrict',
            'IL-M-44',
            [
              ['Rishon LeZion', 31.973, 34.789],
              ['Rehovot', 31.894, 34.811],
              ['Ness Ziona', 31.93, 34.799],
              ['Yavne', 31.878, 34.739],
            ],
          ],
          [
            'Ramla Subdistrict',
            'IL-M-43',
            [
              ['Ramla', 31.929, 34.866],
              ['Lod', 31.951, 34.895],
              ["Modi'in-Maccabim-Re'ut", 31.899, 35.007],
            ],
          ],
        ],
      ],
      [
        'Haifa District',
        'IL-HA',
        [
          [
            'Haifa Subdistrict',
            'IL-HA-31',
            [
              ['Haifa', 32.794, 34.99],
              ['Kiryat Ata', 32.812, 35.106],
              ['Kiryat Bialik', 32.83, 35.087],
              ['Tirat Carmel', 32.76, 34.972],
            ],
          ],
          [
            'Hadera Subdistrict',
            'IL-HA-32',
            [
              ['Hadera', 32.434, 34.919],
              ['Or Akiva', 32.508, 34.918],
              ["Zikhron Ya'akov", 32.571, 34.952],
            ],
          ],
        ],
      ],
      [
        'Northern District',
        'IL-Z',
        [
          ['Kinneret Subdistrict', 'IL-Z-22', [['Tiberias', 32.795, 35.531]]],
          [
            "Yizre'el Subdistrict",
            'IL-Z-23',
            [
              ['Afula', 32.608, 35.289],
              ['Nazareth', 32.699, 35.304],
              ['Nof HaGalil', 32.707, 35.324],
            ],
          ],
          [
            'Akko Subdistrict',
            'IL-Z-24',
            [
              ['Akko', 32.928, 35.076],
              ['Nahariya', 33.006, 35.095],
              ['Karmiel', 32.919, 35.295],
            ],
          ],
          ['Safed Subdistrict', 'IL-Z-21', [['Safed', 32.964, 35.496]]],
        ],
      ],
      [
        'Southern District',
        'IL-D',
        [
          [
            "Be'er Sheva Subdistrict",
            'IL-D-62',
            [
              ["Be'er Sheva", 31.252, 34.791],
              ['Dimona', 31.069, 35.033],
              ['Eilat', 29.558, 34.952],
            ],
          ],
          [
            'Ashkelon Subdistrict',
            'IL-D-61',
            [
              ['Ashdod', 31.804, 34.655],
              ['Ashkelon', 31.669, 34.571],
              ['Kiryat Gat', 31.61, 34.764],
              ['Sderot', 31.525, 34.597],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'TH',
    name: 'Thailand',
    language: 'th',
    weight: 6,
    states: [
      [
        'Bangkok',
        'TH-10',
        [
          [
            'Pathum Wan',
            '1007',
            [
              ['Lumphini', 13.731, 100.544],
              ['Rong Mueang', 13.745, 100.521],
              ['Wang Mai', 13.745, 100.527],
            ],
          ],
          [
            'Bang Rak',
            '1004',
            [
              ['Si Phraya', 13.73, 100.518],
              ['Silom', 13.725, 100.531],
              ['Suriyawong', 13.726, 100.527],
            ],
          ],
          [
            'Chatuchak',
            '1030',
            [
              ['Chatuchak', 13.8, 100.553],
              ['Lat Yao', 13.822, 100.561],
            ],
          ],
          [
            'Watthana',
            '1039',
            [
              ['Khlong Toei Nuea', 13.742, 100.561],
              ['Khlong Tan Nuea', 13.732, 100.579],
            ],
          ],
        ],
      ],
      [
        'Chiang Mai',
        'TH-50',
        [
          [
            'Mueang Chiang Mai',
            '5001',
            [
              ['Si Phum', 18.792, 98.989],
              ['Chang Khlan', 18.779, 99.0],
              ['Suthep', 18.801, 98.951],
            ],
          ],
          ['San Sai', '5010', [['San Sai Luang', 18.858, 99.043]]],
          ['Mae Rim', '5007', [['Rim Tai', 18.913, 98.948]]],
          ['Hang Dong', '5012', [['Hang Dong', 18.688, 98.92]]],
        ],
      ],
      [
        'Phuket',
        'TH-83',
        [
          [
            'Mueang Phuket',
            '8301',
            [
              ['Talat Yai', 7.887, 98.391],
              ['Rawai', 7.779, 98.329],
              ['Karon', 7.846, 98.296],
            ],
          ],
          [
            'Kathu',
            '8302',
            [
              ['Patong', 7.896, 98.297],
              ['Kathu', 7.912, 98.333],
            ],
          ],
          [
            'Thalang',
            '8303',
            [
              ['Choeng Thale', 7.998, 98.303],
              ['Thep Krasattri', 8.033, 98.331],
            ],
          ],
        ],
      ],
      [
        'Chon Buri',
        'TH-20',
        [
          [
            'Bang Lamung',
            '2004',
            [
              ['Nong Prue', 12.927, 100.897],
              ['Na Kluea', 12.955, 100.89],
              ['Bang Lamung', 13.047, 100.928],
            ],
          ],
          [
            'Mueang Chon Buri',
            '2001',
            [
              ['Bang Pla Soi', 13.362, 100.984],
              ['Saen Suk', 13.287, 100.912],
            ],
          ],
          [
            'Si Racha',
            '2007',
            [
              ['Si Racha', 13.174, 100.93],
              ['Bo Win', 13.05, 101.083],
            ],
          ],
        ],
      ],
      [
        'Nakhon Ratchasima',
        'TH-30',
        [
          [
            'Mueang Nakhon Ratchasima',
            '3001',
            [
              ['Nai Mueang', 14.975, 102.1],
              ['Pho Klang', 14.962, 102.096],
            ],
          ],
          ['Pak Chong', '3021', [['Pak Chong', 14.708, 101.414]]],
        ],
      ],
      [
        'Khon Kaen',
        'TH-40',
        [
          [
            'Mueang Khon Kaen',
            '4001',
            [
              ['Nai Mueang', 16.43, 102.835],
              ['Sila', 16.48, 102.822],
            ],
          ],
          ['Ban Phai', '4013', [['Ban Phai', 16.06, 102.733]]],
        ],
      ],
      [
        'Nonthaburi',
        'TH-12',
        [
          [
            'Mueang Nonthaburi',
            '1201',
            [
              ['Suan Yai', 13.842, 100.491],
              ['Bang Kraso', 13.861, 100.503],
            ],
          ],
          [
            'Pak Kret',
            '1206',
            [
              ['Pak Kret', 13.912, 100.498],
              ['Bang Talat', 13.89, 100.527],
            ],
          ],
        ],
      ],
      [
        'Songkhla',
        'TH-90',
        [
          [
            'Hat Yai',
            '9011',
            [
              ['Hat Yai', 7.008, 100.474],
              ['Kho Hong', 7.02, 100.5],
            ],
          ],
          ['Mueang Songkhla', '9001', [['Bo Yang', 7.199, 100.595]]],
        ],
      ],
      [
        'Surat Thani',
        'TH-84',
        [
          [
            'Ko Samui',
            '8404',
            [
              ['Bo Phut', 9.55, 100.03],
              ['Maret', 9.47, 100.05],
              ['Ang Thong', 9.535, 99.993],
            ],
          ],
          ['Ko Pha-ngan', '8405', [['Ko Pha-ngan', 9.711, 100.008]]],
        ],
      ],
    ],
  },
  {
    code: 'IT',
    name: 'Italy',
    language: 'it',
    weight: 11,
    states: [
      [
        'Lombardia',
        'IT-25',
        [
          [
            'Milano',
            'MI',
            [
              ['Milano', 45.464, 9.19],
              ['Sesto San Giovanni', 45.533, 9.23],
              ['Rho', 45.528, 9.04],
            ],
          ],
          [
            'Bergamo',
            'BG',
            [
              ['Bergamo', 45.698, 9.677],
              ['Treviglio', 45.521, 9.593],
            ],
          ],
          [
            'Brescia',
            'BS',
            [
              ['Brescia', 45.541, 10.212],
              ['Desenzano del Garda', 45.47, 10.54],
            ],
          ],
        ],
      ],
      [
        'Lazio',
        'IT-62',
        [
          [
            'Roma',
            'RM',
            [
              ['Roma', 41.903, 12.496],
              ['Fiumicino', 41.771, 12.237],
              ['Tivoli', 41.963, 12.798],
              ['Guidonia Montecelio', 42.0, 12.725],
            ],
          ],
          [
            'Latina',
            'LT',
            [
              ['Latina', 41.468, 12.903],
              ['Terracina', 41.289, 13.25],
            ],
          ],
        ],
      ],
      [
        'Campania',
        'IT-72',
        [
          [
            'Napoli',
            'NA',
            [
              ['Napoli', 40.852, 14.268],
              ['Pozzuoli', 40.822, 14.122],
              ['Torre del Greco', 40.787, 14.368],
            ],
          ],
          [
            'Salerno',
            'SA',
            [
              ['Salerno', 40.682, 14.769],
              ['Amalfi', 40.634, 14.603],
              ['Battipaglia', 40.609, 14.983],
            ],
          ],
        ],
      ],
      [
        'Toscana',
        'IT-52',
        [
          [
            'Firenze',
            'FI',
            [
              ['Firenze', 43.77, 11.256],
              ['Empoli', 43.719, 10.946],
              ['Sesto Fiorentino', 43.832, 11.2],
            ],
          ],
          [
            'Pisa',
            'PI',
            [
              ['Pisa', 43.723, 10.402],
              ['Pontedera', 43.663, 10.633],
            ],
          ],
          [
            'Siena',
            'SI',
            [
              ['Siena', 43.318, 11.331],
              ['Montepulciano', 43.1, 11.781],
            ],
          ],
        ],
      ],
      [
        'Veneto',
        'IT-34',
        [
          [
            'Venezia',
            'VE',
            [
              ['Venezia', 45.441, 12.316],
              ['Chioggia', 45.219, 12.279],
              ['Jesolo', 45.534, 12.644],
            ],
          ],
          [
            'Verona',
            'VR',
            [
              ['Verona', 45.438, 10.992],
              ['Villafranca di Verona', 45.354, 10.845],
            ],
          ],
          [
            'Padova',
            'PD',
            [
              ['Padova', 45.406, 11.877],
              ['Abano Terme', 45.36, 11.79],
            ],
          ],
        ],
      ],
      [
        'Piemonte',
        'IT-21',
        [
          [
            'Torino',
            'TO',
            [
              ['Torino', 45.07, 7.687],
              ['Moncalieri', 45.0, 7.683],
              ['Rivoli', 45.071, 7.513],
            ],
          ],
          [
            'Cuneo',
            'CN',
            [
              ['Cuneo', 44.384, 7.542],
              ['Alba', 44.7, 8.035],
            ],
          ],
        ],
      ],
      [
        'Sicilia',
        'IT-82',
        [
          [
            'Palermo',
            'PA',
            [
              ['Palermo', 38.116, 13.361],
              ['Bagheria', 38.08, 13.508],
            ],
          ],
          [
            'Catania',
            'CT',
            [
              ['Catania', 37.502, 15.087],
              ['Acireale', 37.612, 15.166],
            ],
          ],
        ],
      ],
      [
        'Emilia-Romagna',
        'IT-45',
        [
          [
            'Bologna',
            'BO',
            [
              ['Bologna', 44.494, 11.343],
              ['Imola', 44.353, 11.714],
            ],
          ],
          [
            'Rimini',
            'RN',
            [
              ['Rimini', 44.059, 12.568],
              ['Riccione', 43.999, 12.656],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'NL',
    name: 'Netherlands',
    language: 'nl',
    weight: 6,
    states: [
      [
        'Noord-Holland',
        'NL-NH',
        [
          ['Amsterdam', 'GM0363', [['Amsterdam', 52.373, 4.893]]],
          ['Haarlem', 'GM0392', [['Haarlem', 52.387, 4.646]]],
          [
            'Zaanstad',
            'GM0479',
            [
              ['Zaandam', 52.439, 4.826],
              ['Wormerveer', 52.491, 4.789],
              ['Krommenie', 52.499, 4.763],
            ],
          ],
          [
            'Haarlemmermeer',
            'GM0394',
            [
              ['Hoofddorp', 52.303, 4.69],
              ['Nieuw-Vennep', 52.264, 4.634],
              ['Badhoevedorp', 52.338, 4.783],
            ],
          ],
        ],
      ],
      [
        'Zuid-Holland',
        'NL-ZH',
        [
          [
            'Rotterdam',
            'GM0599',
            [
              ['Rotterdam', 51.924, 4.478],
              ['Hoek van Holland', 51.977, 4.133],
            ],
          ],
          [
            "'s-Gravenhage",
            'GM0518',
            [
              ['Den Haag', 52.07, 4.3],
              ['Scheveningen', 52.109, 4.275],
            ],
          ],
          ['Leiden', 'GM0546', [['Leiden', 52.16, 4.497]]],
          ['Delft', 'GM0503', [['Delft', 52.012, 4.358]]],
        ],
      ],
      [
        'Utrecht',
        'NL-UT',
        [
          [
            'Utrecht',
            'GM0344',
            [
              ['Utrecht', 52.091, 5.122],
              ['Vleuten', 52.103, 5.013],
            ],
          ],
          ['Amersfoort', 'GM0307', [['Amersfoort', 52.156, 5.388]]],
          [
            'Stichtse Vecht',
            'GM1904',
            [
              ['Maarssen', 52.136, 5.04],
              ['Breukelen', 52.174, 5.001],
            ],
          ],
        ],
      ],
      [
        'Noord-Brabant',
        'NL-NB',
        [
          ['Eindhoven', 'GM0772', [['Eindhoven', 51.441, 5.47]]],
          [
            'Tilburg',
            'GM0855',
            [
              ['Tilburg', 51.556, 5.091],
              ['Berkel-Enschot', 51.584, 5.14],
            ],
          ],
          ['Breda', 'GM0758', [['Breda', 51.589, 4.776]]],
          [
            "'s-Hertogenbosch",
            'GM0796',
            [
              ["'s-Hertogenbosch", 51.69, 5.304],
              ['Rosmalen', 51.716, 5.365],
            ],
          ],
        ],
      ],
      [
        'Gelderland',
        'NL-GE',
        [
          ['Arnhem', 'GM0202', [['Arnhem', 51.985, 5.899]]],
          ['Nijmegen', 'GM0268', [['Nijmegen', 51.842, 5.853]]],
          [
            'Bronckhorst',
            'GM1876',
            [
              ['Hengelo', 52.05, 6.31],
              ['Vorden', 52.105, 6.311],
            ],
          ],
        ],
      ],
      [
        'Overijssel',
        'NL-OV',
        [
          ['Hengelo', 'GM0164', [['Hengelo', 52.266, 6.793]]],
          ['Enschede', 'GM0153', [['Enschede', 52.222, 6.894]]],
          ['Zwolle', 'GM0193', [['Zwolle', 52.517, 6.083]]],
        ],
      ],
      [
        'Groningen',
        'NL-GR',
        [
          [
            'Groningen',
            'GM0014',
            [
              ['Groningen', 53.219, 6.567],
              ['Haren', 53.173, 6.605],
            ],
          ],
        ],
      ],
    ],
  },
  {
    code: 'PL',
    name: 'Poland',
    language: 'pl',
    weight: 8,
    states: [
      [
        'Mazowieckie',
        'PL-14',
        [
          ['Warszawa', '1465', [['Warszawa', 52.23, 21.012]]],
          [
            'Powiat piaseczyński',
            '1418',
            [
              ['Piaseczno', 52.081, 21.024],
              ['Konstancin-Jeziorna', 52.084, 21.118],
              ['Góra Kalwaria', 51.976, 21.215],
            ],
          ],
          [
            'Powiat pruszkowski',
            '1421',
            [
              ['Pruszków', 52.171, 20.812],
              ['Piastów', 52.184, 20.839],
            ],
          ],
          ['Radom', '1463', [['Radom', 51.403, 21.147]]],
        ],
      ],
      [
        'Małopolskie',
        'PL-12',
        [
          ['Kraków', '1261', [['Kraków', 50.065, 19.945]]],
          [
            'Powiat wielicki',
            '1219',
            [
              ['Wieliczka', 49.987, 20.065],
              ['Niepołomice', 50.034, 20.218],
            ],
          ],
          [
            'Powiat tatrzański',
            '1217',
            [
              ['Zakopane', 49.299, 19.949],
              ['Poronin', 49.336, 20.007],
            ],
          ],
          ['Nowy Sącz', '1262', [['Nowy Sącz', 49.625, 20.692]]],
        ],
      ],
      [
        'Śląskie',
        'PL-24',
        [
          ['Katowice', '2469', [['Katowice', 50.264, 19.024]]],
          ['Gliwice', '2466', [['Gliwice', 50.294, 18.667]]],
          ['Bielsko-Biała', '2461', [['Bielsko-Biała', 49.822, 19.045]]],
          [
            'Powiat cieszyński',
            '2403',
            [
              ['Cieszyn', 49.75, 18.632],
              ['Ustroń', 49.72, 18.812],
              ['Wisła', 49.656, 18.859],
            ],
          ],
        ],
      ],
      [
        'Wielkopolskie',
        'PL-30',
        [
          ['Poznań', '3064', [['Poznań', 52.406, 16.925]]],
          [
            'Powiat poznański',
            '3021',
            [
              ['Swarzędz', 52.41, 17.078],
              ['Luboń', 52.347, 16.878],
              ['Mosina', 52.245, 16.847],
            ],
          ],
          ['Kalisz', '3061', [['Kalisz', 51.761, 18.091]]],
        ],
      ],
      [
        'Pomorskie',
        'PL-22',
        [
          ['Gdańsk', '2261', [['Gdańsk', 54.352, 18.646]]],
          ['Gdynia', '2262', [['Gdynia', 54.518, 18.531]]],
          ['Sopot', '2264', [['Sopot', 54.441, 18.56]]],
          [
            'Powiat pucki',
            '2211',
            [
              ['Puck', 54.718, 18.408],
              ['Władysławowo', 54.791, 18.402],
              ['Jastarnia', 54.696, 18.679],
            ],
          ],
        ],
      ],
      [
        'Dolnośląskie',
        'PL-02',
        [
          ['Wrocław', '0264', [['Wrocław', 51.108, 17.039]]],
          [
            'Powiat wrocławski',
            '0223',
            [
              ['Kąty Wrocławskie', 51.031, 16.768],
              ['Siechnice', 51.035, 17.151],
            ],
          ],
          ['Jelenia Góra', '0261', [['Jelenia Góra', 50.904, 15.72]]],
          [
            'Powiat karkonoski',
            '0206',
            [
              ['Karpacz', 50.775, 15.755],
              ['Szklarska Poręba', 50.827, 15.522],
            ],
          ],
        ],
      ],
      [
        'Łódzkie',
        'PL-10',
        [
          ['Łódź', '1061', [['Łódź', 51.759, 19.456]]],
          [
            'Powiat zgierski',
            '1020',
            [
              ['Zgierz', 51.855, 19.406],
              ['Aleksandrów Łódzki', 51.819, 19.304],
            ],
          ],
        ],
      ],
    ],
  },
]

/** Lower-case ASCII slug ("Frankfurt (Oder)" → "frankfurt-oder"), for codes and e-mail domains. */
export function slugify(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
}

/**
 * Countries, then level 1, 2 and 3 in the order above: ids are assigned by the database in that
 * order, so the same data always gets the same ids.
 */
export async function seedGeography(db: Db): Promise<void> {
  await db.tx(async (q) => {
    for (const country of COUNTRIES) {
      await q.query('INSERT INTO countries (code, name, language) VALUES ($1, $2, $3)', [country.code, country.name, country.language])
      for (const [stateName, stateCode, counties] of country.states) {
        const l1 = await q.query<{ id: number }>(
          'INSERT INTO level1_locations (country_code, name, code) VALUES ($1, $2, $3) RETURNING id',
          [country.code, stateName, stateCode],
        )
        const level1Id = l1.rows[0]!.id
        for (const [countyName, countyCode, cities] of counties) {
          const l2 = await q.query<{ id: number }>(
            'INSERT INTO level2_locations (country_code, level1_id, name, code) VALUES ($1, $2, $3, $4) RETURNING id',
            [country.code, level1Id, countyName, countyCode],
          )
          const level2Id = l2.rows[0]!.id
          await q.query(
            `INSERT INTO level3_locations (country_code, level1_id, level2_id, name, code, latitude, longitude)
             SELECT $1, $2, $3, name, $4 || '-' || slug, lat, lng
             FROM unnest($5::text[], $6::text[], $7::float8[], $8::float8[]) AS t(name, slug, lat, lng)`,
            [
              country.code,
              level1Id,
              level2Id,
              countyCode.startsWith(`${country.code}-`) ? countyCode : `${country.code}-${countyCode}`,
              cities.map((c) => c[0]),
              cities.map((c) => slugify(c[0])),
              cities.map((c) => c[1]),
              cities.map((c) => c[2]),
            ],
          )
        }
      }
    }
  })
}
