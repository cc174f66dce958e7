// API-Bank's classes by name, per package: `apis/` (levels 1 and 2) and `lv3_apis/` (level 3). ToolSearcher is not
// here: it is never executed (prior ToolSearcher rows are skipped, a gold ToolSearcher is scored by toolsearcher.ts).
import type { ApiDef } from './api-kit.ts';
import * as account from './apis-account.ts';
import * as calendar from './apis-calendar.ts';
import * as lv3 from './apis-lv3.ts';
import * as services from './apis-services.ts';

const byName = (defs: ApiDef[]): ReadonlyMap<string, ApiDef> => new Map(defs.map((d) => [d.name, d]));

export const APIS: ReadonlyMap<string, ApiDef> = byName([
  account.CheckToken,
  account.GetUserToken,
  account.RegisterUser,
  account.DeleteAccount,
  account.ModifyPassword,
  account.ForgotPassword,
  account.OpenBankAccount,
  account.QueryBalance,
  account.AddAlarm,
  account.DeleteAlarm,
  account.ModifyAlarm,
  account.QueryAlarm,
  calendar.AddAgenda,
  calendar.DeleteAgenda,
  calendar.ModifyAgenda,
  calendar.QueryAgenda,
  calendar.AddReminder,
  calendar.DeleteReminder,
  calendar.ModifyReminder,
  calendar.QueryReminder,
  calendar.AddMeeting,
  calendar.DeleteMeeting,
  calendar.ModifyMeeting,
  calendar.QueryMeeting,
  services.AppointmentRegistration,
  services.QueryRegistration,
  services.ModifyRegistration,
  services.CancelRegistration,
  services.RecordHealthData,
  services.QueryHealthData,
  services.QueryStock,
  services.QueryHistoryToday,
  services.AddScene,
  services.ModifyScene,
  services.DeleteScene,
  services.QueryScene,
  services.TimedSwitch,
  services.CancelTimedSwitch,
  services.SymptomSearch,
  services.EmergencyKnowledge,
  services.DocumentQA,
  services.ImageCaption,
  services.SpeechRecognition,
  services.Wiki,
  services.Calculator,
  services.GetToday,
  services.PlayMusic,
  services.SendEmail,
  services.BookHotel,
  services.Dictionary,
  services.SearchEngine,
  services.Translate,
]);

export const LV3_APIS: ReadonlyMap<string, ApiDef> = byName([
  lv3.AccountInfo,
  lv3.AddMeetingL3,
  services.Calculator,
  lv3.ClothingRecommendation,
  lv3.EmailReminder,
  lv3.FlightSearch,
  lv3.Geocoding,
  lv3.GetOccupationSalary,
  lv3.GetWeatherForCoordinates,
  lv3.HotelAvailability,
  lv3.LikeCount,
  lv3.MovieRecommendations,
  lv3.NearbyRestaurants,
  lv3.OrganizationMembers,
  lv3.QueryMeetingL3,
  lv3.TaxCalculator,
  lv3.TravelStatus,
  lv3.PersonalInfoUpdate,
  lv3.UserPosts,
  lv3.UserWatchedMovies,
  lv3.UserMoviePreferences,
]);

/** The class names each package defines (ToolSearcher aside). */
export const API_NAMES_BY_LEVEL: Record<'apis' | 'lv3_apis', readonly string[]> = {
  apis: [...APIS.keys()],
  lv3_apis: [...LV3_APIS.keys()],
};
